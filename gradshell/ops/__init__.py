"""gradshell.ops"""

"""gradshell.printing"""

"""gradshell.replay"""

"""gradshell.learn"""

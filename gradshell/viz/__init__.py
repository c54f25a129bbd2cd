"""gradshell.viz"""

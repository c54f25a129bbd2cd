"""gradshell.torch"""

"""gradshell.core"""

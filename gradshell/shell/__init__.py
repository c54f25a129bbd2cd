"""gradshell.shell"""

"""gradshell in Jupyter: a kernel (`gradshell kernel install`) for notebooks, JupyterLab
and JupyterHub. Needs the optional extra: `pip install 'gradshell[jupyter]'`."""

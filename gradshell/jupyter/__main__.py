"""`python -m gradshell.jupyter -f CONNECTION_FILE`: what Jupyter runs for the kernel."""

from ipykernel.kernelapp import IPKernelApp

from gradshell.jupyter.kernel import GradshellKernel

if __name__ == "__main__":
    IPKernelApp.launch_instance(kernel_class=GradshellKernel)

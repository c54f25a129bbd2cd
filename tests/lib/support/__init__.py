"""Shared test machinery: running the same program on gradshell and on real PyTorch,
and finite-difference gradient checks."""

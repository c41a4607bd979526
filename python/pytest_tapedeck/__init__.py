"""pytest fixtures that replay tapedeck cassettes and record new ones."""

from pytest_tapedeck.bench import BenchError, BenchProcess, bench_command

__all__ = ["BenchError", "BenchProcess", "bench_command"]
__version__ = "0.1.0"

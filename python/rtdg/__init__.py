"""rtdg: run-time generated GPU kernels and discontinuous Galerkin solvers, from Python.

Two tiers, as PyCUDA argues for them: Python for setting up, deciding and gluing; kernels
generated and compiled at run time for the inner loops (docs/python.md).

Kernels (PyCUDA's shape)
    backend, Array, to_device, empty, zeros, from_dlpack, SourceModule, Module, Kernel,
    ElementwiseKernel, ReductionKernel, Variant, tune, TuningResult
Solvers
    Config, config_from_dict, Law, read_law, Plan, plan_from_text, Solver, far_field
Errors
    Error and its subclasses CompileError, LaunchError, DeviceError, ConfigError, LawError,
    RunFailure: str() is the C++ message (file:line:column where there is one).
"""

from ._rtdg import (  # noqa: F401
    __version__,
    Array,
    Backend,
    CompileError,
    Config,
    ConfigError,
    DeviceError,
    ElementwiseKernel,
    Error,
    Kernel,
    Law,
    LawError,
    LaunchError,
    Module,
    Plan,
    ReductionKernel,
    RunFailure,
    Solver,
    SourceModule,
    TuningResult,
    Variant,
    backend,
    cuda_available,
    cuda_unavailable_reason,
    empty,
    from_dlpack,
    plan_from_text,
    read_law,
    to_device,
    tune,
    tune_budget_seconds,
)
from .config import config_from_dict, toml_text  # noqa: F401
from .farfield import far_field  # noqa: F401


def zeros(shape, dtype="float64", backend=None):
    """zeros(shape, dtype="float64", backend=None) -> Array

    A new device array of zeros."""
    a = empty(shape, dtype, backend)
    a.fill(0)
    return a


Solver.far_field = far_field

"""sourcediff: derivatives of plain numeric Python by source transformation, compiled with Numba.

See API.md for the contract; ``sourcediff.pipeline`` for the stages.
"""

from .api import (
    adjoint_source,
    grad,
    hessian,
    hvp,
    jacobian,
    jit,
    jvp,
    tangent_source,
    tape_size,
    value_and_grad,
    vjp,
)
from .custom import custom_jvp, custom_vjp
from .errors import (
    ArgumentError,
    SourceDiffError,
    TypeInferenceError,
    UnsupportedCallError,
    UnsupportedSyntaxError,
)
from .policy import Checkpoint
from .testing import check_grad

__version__ = "0.1.0"

__all__ = [
    "ArgumentError",
    "Checkpoint",
    "SourceDiffError",
    "TypeInferenceError",
    "UnsupportedCallError",
    "UnsupportedSyntaxError",
    "adjoint_source",
    "check_grad",
    "custom_jvp",
    "custom_vjp",
    "grad",
    "hessian",
    "hvp",
    "jacobian",
    "jit",
    "jvp",
    "tangent_source",
    "tape_size",
    "value_and_grad",
    "vjp",
]

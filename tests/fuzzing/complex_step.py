"""Complex-step reference gradients for generated programs, independent of sourcediff.

``complex_step_gradient(source, args, argnums)`` executes a program's whole module
(``f`` and its helpers) in a namespace where ``math``, ``numpy`` and the builtins
that are not complex-safe are replaced by stand-ins, and returns ``Im f(x + i h e_k) / h``
for every float argument element: exact to rounding, with no step-size trade-off.

The stand-ins keep the program's real semantics on the real part: branches,
comparisons, ``abs``, ``max``/``min``, ``sign``, rounding and sorting follow the real
part, new float arrays are complex128 (a complex value written into them keeps
its imaginary part), ``float(z)`` keeps ``z``, and functions that conjugate or take
moduli (``np.vdot``, ``np.linalg.norm``, ``np.var``) are written without. A
function with no complex-safe stand-in raises ``NotImplementedError``, and so does
any evaluation that fails, discards an imaginary part (``ComplexWarning``) or whose
real part is not the program's value: the caller then has no complex-step reference.

Refused: ``%`` and ``//`` on floats (numpy has no complex remainder), casts to a
real dtype (``astype("float64")``), and every ``math``/``numpy`` name without a
stand-in (``np.interp``, ``np.random``, ``math.nextafter``, ...). Not intercepted:
ndarray methods that take moduli or real parts (``.std()``, ``.var()``, ``.real``)
silently lose the derivative; the cross-check with Richardson (``reference.py``)
flags them.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import types
import warnings

import numpy as np

ComplexWarning = np.exceptions.ComplexWarning


def _re(x):
    """The real part, which every branch, comparison and kink follows."""
    return np.real(x)


def _out(x):
    """A 0-d array as a scalar; anything else as is."""
    return x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x


def _promoted(x):
    """A float array as complex128 (so that complex values can be written into it)."""
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return x.astype(np.complex128)
    return x


class _StandIn(types.ModuleType):
    """A module of stand-ins; a missing name raises ``NotImplementedError``."""

    def __init__(self, name: str, members: dict):
        super().__init__(name)
        self.__dict__.update(members)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise NotImplementedError(f"{self.__name__}.{attr} has no complex-step stand-in")


# -- builtins ----------------------------------------------------------------------


def _abs(x):
    """``|x|`` as ``sign(Re x) * x``."""
    if np.iscomplexobj(x):
        return _out(np.where(_re(x) < 0, -x, x))
    return builtins.abs(x)


def _by_real(pick):
    """``builtins.max``/``min`` comparing real parts (of the values or of their keys)."""

    def chosen(*args, key=None, **kwargs):
        return pick(*args, key=lambda v: _re(key(v) if key else v), **kwargs)

    return chosen


def _round(x, ndigits=None):
    """``round`` of the real part (piecewise constant: no derivative)."""
    return builtins.round(builtins.float(_re(x)) if np.iscomplexobj(x) else x, ndigits)


def _divmod(x, y):
    """``divmod`` with the quotient from the real parts: ``(q, x - q * y)``."""
    if not (np.iscomplexobj(x) or np.iscomplexobj(y)):
        return builtins.divmod(x, y)
    q = math.floor(_re(x) / _re(y))
    return builtins.float(q), x - q * y


class _FloatType(type):
    """``isinstance(v, float)`` true of floats and of complex128 values."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, (builtins.float, np.floating, np.complex128))


class _Float(metaclass=_FloatType):
    """``float`` and ``np.float64``: keeps a complex value whole; as a dtype, complex128."""

    dtype = np.dtype(np.complex128)

    def __new__(cls, x=0.0):
        return np.complex128(x.item() if isinstance(x, np.ndarray) else x)


class _IntType(type):
    """``isinstance(v, int)`` true of ints."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, builtins.int)


class _Int(builtins.int, metaclass=_IntType):
    """``int`` of the real part; as a dtype, the platform integer."""

    dtype = np.dtype(builtins.int)

    def __new__(cls, x=0, *base):
        return builtins.int(_re(x) if np.iscomplexobj(x) else x, *base)


# -- math --------------------------------------------------------------------------


def _analytic(ufunc, domain=None):
    """A ``math`` function as a numpy ufunc on complex128, with math's domain check."""

    def function(x):
        z = _Float(x)
        if domain is not None and not domain(z.real):
            raise ValueError("math domain error")
        return ufunc(z)

    return function


def _atan2(y, x):
    """``atan2`` continued analytically: ``atan(y/x)`` (or ``+-pi/2 - atan(x/y)`` where
    ``|y| > |x|``) plus the quadrant's constant, chosen on the real parts."""
    y, x = np.asarray(y, dtype=np.complex128), np.asarray(x, dtype=np.complex128)
    yr, xr = y.real, x.real
    with np.errstate(divide="ignore", invalid="ignore"):
        flat = np.arctan(y / x) + np.where(xr < 0, np.where(yr >= 0, np.pi, -np.pi), 0.0)
        steep = np.where(yr >= 0, np.pi / 2, -np.pi / 2) - np.arctan(x / y)
    both_zero = (xr == 0) & (yr == 0)
    zero = np.where(xr < 0, np.where(yr >= 0, np.pi, -np.pi), 0.0)
    return _out(np.where(both_zero, zero, np.where(abs(yr) > abs(xr), steep, flat)))


def _cbrt(x):
    """Real cube root continued analytically: ``s * (s x) ** (1/3)``, ``s = sign(Re x)``."""
    s = np.sign(_re(x))
    return _out(np.asarray(s * (s * np.asarray(x, dtype=np.complex128)) ** (1.0 / 3.0)))


def _log(x, base=None):
    """``math.log`` with an optional base."""
    value = _analytic(np.log, lambda r: r > 0)(x)
    return value if base is None else value / _analytic(np.log, lambda r: r > 0)(base)


def _on_real_scalar(function):
    """A ``math`` function of the real parts only (floor, isfinite, ...)."""
    return lambda *xs, **kw: function(*(builtins.float(_re(x)) for x in xs), **kw)


def _scipy_special(name):
    """A ``scipy.special`` function (complex-analytic), or a refusal without scipy."""

    def function(x):
        try:
            import scipy.special
        except ImportError as exc:
            raise NotImplementedError(f"math.{name} needs scipy for complex step") from exc
        return np.complex128(getattr(scipy.special, name)(_Float(x)))

    return function


def _gamma(x):
    """``gamma``, by reflection left of 1/2 (scipy's complex gamma is ``exp(loggamma)``
    there, whose ``k pi`` imaginary part swamps the step)."""
    z = _Float(x)
    if z.real >= 0.5:
        return _scipy_special("gamma")(z)
    return np.pi / (np.sin(np.pi * z) * _scipy_special("gamma")(1.0 - z))


def _lgamma(x):
    """``log |gamma(x)|``, continued analytically (by reflection left of 1/2)."""
    z = _Float(x)
    if z.real >= 0.5:
        return _scipy_special("loggamma")(z)
    return np.log(np.pi / _abs(np.sin(np.pi * z))) - _scipy_special("loggamma")(1.0 - z)


def _math_members() -> dict:
    """The ``math`` stand-ins by name."""
    real_domain = {
        "asin": (np.arcsin, lambda r: -1 <= r <= 1),
        "acos": (np.arccos, lambda r: -1 <= r <= 1),
        "acosh": (np.arccosh, lambda r: r >= 1),
        "atanh": (np.arctanh, lambda r: -1 < r < 1),
        "sqrt": (np.sqrt, lambda r: r >= 0),
        "log2": (np.log2, lambda r: r > 0),
        "log10": (np.log10, lambda r: r > 0),
        "log1p": (np.log1p, lambda r: r > -1),
    }
    members = {name: _analytic(*pair) for name, pair in real_domain.items()}
    for name, ufunc in [
        ("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("atan", np.arctan),
        ("sinh", np.sinh), ("cosh", np.cosh), ("tanh", np.tanh), ("asinh", np.arcsinh),
        ("exp", np.exp), ("expm1", np.expm1), ("exp2", np.exp2),
    ]:  # fmt: skip
        members[name] = _analytic(ufunc)
    for name in ["floor", "ceil", "trunc", "isfinite", "isnan", "isinf", "isclose"]:
        members[name] = _on_real_scalar(getattr(math, name))
    for name in "comb factorial gcd lcm isqrt perm pi e tau inf nan".split():
        members[name] = getattr(math, name)
    members.update(
        log=_log,
        fabs=_abs,
        atan2=_atan2,
        cbrt=_cbrt,
        pow=lambda x, y: _Float(x) ** y,
        hypot=lambda *xs: np.sqrt(builtins.sum((x * x for x in xs), 0.0)),
        dist=lambda p, q: np.sqrt(builtins.sum(((a - b) ** 2 for a, b in zip(p, q)), 0.0)),
        copysign=lambda x, y: _abs(x) * math.copysign(1.0, builtins.float(_re(y))),
        fmod=lambda x, y: x - y * math.trunc(_re(x) / _re(y)),
        remainder=lambda x, y: x - y * builtins.round(_re(x) / _re(y)),
        modf=lambda x: (x - math.trunc(_re(x)), builtins.float(math.trunc(_re(x)))),
        frexp=lambda x: (x / 2.0 ** math.frexp(_re(x))[1], math.frexp(_re(x))[1]),
        ldexp=lambda x, i: x * 2.0**i,
        degrees=lambda x: x * (180.0 / math.pi),
        radians=lambda x: x * (math.pi / 180.0),
        fsum=lambda xs: builtins.sum(xs, 0.0),
        prod=lambda xs, start=1: functools.reduce(operator.mul, xs, start),
        erf=_scipy_special("erf"),
        erfc=_scipy_special("erfc"),
        gamma=_gamma,
        lgamma=_lgamma,
    )
    return members


# -- numpy -------------------------------------------------------------------------

# Analytic in every entry (no conjugate, modulus or ordering): used as they are.
_NUMPY_AS_IS = """
sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp exp2 expm1
log log2 log10 log1p sqrt square power float_power reciprocal negative positive add
subtract multiply divide true_divide sinc matmul dot inner outer einsum tensordot kron cross
trace diag diagonal sum nansum prod cumsum cumprod mean average diff polyval trapezoid
reshape ravel transpose swapaxes moveaxis concatenate stack hstack vstack column_stack
append flip fliplr flipud roll tile repeat squeeze expand_dims atleast_1d atleast_2d
broadcast_to copy where take take_along_axis put triu tril meshgrid shape ndim size
isscalar ndindex ndenumerate all any logical_and logical_or logical_not logical_xor
errstate newaxis pi e inf nan euler_gamma ndarray complex128 bool_ integer int8 int16
int32 int64 intp triu_indices tril_indices
""".split()

# Functions of the real parts only (comparisons, rounding, tests): results carry no
# derivative; float arrays among them are made complex so that they can be written into.
_NUMPY_ON_REAL = """
sign floor ceil trunc rint fix round around heaviside isfinite isnan isinf isclose allclose
nonzero flatnonzero count_nonzero argwhere greater less greater_equal less_equal equal
not_equal argmax argmin argsort array_equal searchsorted
""".split()


def _on_real(function):
    """``function`` of the real parts of its positional arguments."""

    def on_real(*args, **kwargs):
        return _promoted(function(*(_re(a) for a in args), **kwargs))

    return on_real


def _dtype(dtype):
    """Float dtypes become complex128; others stay."""
    if dtype is None:
        return None
    dtype = np.dtype(dtype)
    return np.dtype(np.complex128) if dtype.kind == "f" else dtype


def _creating(function, position):
    """A numpy constructor whose float arrays are complex128 (``position``: that of
    ``dtype`` among the positional parameters)."""

    def create(*args, **kwargs):
        args = list(args)
        if len(args) > position:
            args[position] = _dtype(args[position])
        elif "dtype" in kwargs:
            kwargs["dtype"] = _dtype(kwargs["dtype"])
        return _promoted(function(*args, **kwargs))

    return create


def _extreme(arg):
    """``np.max``/``np.min`` picking the element of greatest/least real part."""

    def reduce(x, axis=None, out=None, keepdims=False):
        if out is not None:
            raise NotImplementedError("np.max/np.min with out=")
        x = np.asarray(x)
        if isinstance(axis, tuple):  # the axes moved last and made one
            axes = [a % x.ndim for a in axis]
            rest = [k for k in range(x.ndim) if k not in axes]
            lines = np.transpose(x, rest + axes).reshape([x.shape[k] for k in rest] + [-1])
            value = reduce(lines, axis=-1)
            kept = [1 if k in axes else x.shape[k] for k in range(x.ndim)]
            return np.reshape(value, kept) if keepdims else value
        if axis is None:
            value = x.reshape(-1)[arg(x.real.reshape(-1))]
            return np.full((1,) * x.ndim, value) if keepdims else value
        value = np.take_along_axis(x, np.expand_dims(arg(x.real, axis=axis), axis), axis)
        return value if keepdims else np.squeeze(value, axis)

    return reduce


def _pairwise(first_if):
    """``np.maximum``-like: ``x`` where ``first_if(Re x, Re y)``, else ``y``."""
    return lambda x, y: _out(np.where(first_if(_re(x), _re(y)), x, y))


def _clip(x, a_min=None, a_max=None):
    """``np.clip`` on the real parts; the bounds carry their own derivatives."""
    result = np.asarray(x)
    if a_min is not None:
        result = np.where(_re(result) < _re(a_min), a_min, result)
    if a_max is not None:
        result = np.where(_re(result) > _re(a_max), a_max, result)
    return _out(_promoted(np.asarray(result)))


def _sort(x, axis=-1, kind=None, order=None):
    """``np.sort`` by real part (stable)."""
    x = np.asarray(x)
    if axis is None:
        x, axis = x.reshape(-1), -1
    return np.take_along_axis(x, np.argsort(x.real, axis=axis, kind="stable"), axis)


def _median(x, axis=None):
    """``np.median`` of a whole array, ordered by real part."""
    if axis is not None:
        raise NotImplementedError("np.median with an axis")
    s = _sort(x, axis=None)
    mid = s.size // 2
    return s[mid] if s.size % 2 else (s[mid - 1] + s[mid]) / 2


def _quantile(x, q, axis=None):
    """``np.quantile`` (linear method) of a whole array at one real ``q``, ordered by
    real part."""
    if axis is not None or np.ndim(q) != 0:
        raise NotImplementedError("np.quantile with an axis or several q")
    s = _sort(x, axis=None)
    rank = float(np.real(q)) * (s.size - 1)
    low = int(np.floor(rank))
    high = min(low + 1, s.size - 1)
    return s[low] + (rank - low) * (s[high] - s[low])


def _var(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``np.var`` as ``mean((x - mean)^2)``: no modulus."""
    if dtype is not None or out is not None:
        raise NotImplementedError("np.var/np.std with dtype= or out=")
    x = np.asarray(x)
    mean = np.mean(x, axis=axis, keepdims=True)
    d = x - mean
    return np.sum(d * d, axis=axis, keepdims=keepdims) / (x.size // mean.size - ddof)


def _cov(x):
    """``np.cov`` of rows as variables, without conjugating (NumPy's complex ``cov`` does)."""
    x = np.asarray(x)
    d = x - np.mean(x, axis=-1, keepdims=True)
    return (d @ d.T if x.ndim == 2 else d @ d) / (x.shape[-1] - 1)


def _norm(x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm`` as ``sqrt(sum(x * x))`` (Frobenius, Euclidean), 1- and inf-norms
    of vectors through ``abs``/``max``; other norms are refused."""
    x = np.asarray(x)
    vector = x.ndim == 1 if axis is None else isinstance(axis, int)
    if ord is None or (isinstance(ord, str) and ord == "fro") or (ord == 2 and vector):
        return _out(np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)))
    if vector and ord == 1:
        return np.sum(_abs(x), axis=axis, keepdims=keepdims)
    if vector and ord == np.inf:
        return _extreme(np.argmax)(_abs(x), axis=axis, keepdims=keepdims)
    if vector and ord == -np.inf:
        return _extreme(np.argmin)(_abs(x), axis=axis, keepdims=keepdims)
    raise NotImplementedError(f"np.linalg.norm with ord={ord!r}")


def _mod(x, y):
    """``np.mod``: ``x - y * floor(Re x / Re y)``."""
    return _out(x - y * np.floor(_re(x) / _re(y)))


def _fmod(x, y):
    """``np.fmod``: ``x - y * trunc(Re x / Re y)``."""
    return _out(x - y * np.trunc(_re(x) / _re(y)))


def _cholesky(a):
    """Cholesky of the lower triangle without conjugation: analytic in the entries, so that
    the complex step differentiates it (NumPy's complex Cholesky is Hermitian)."""
    a = np.asarray(a)
    n = a.shape[0]
    lower = np.zeros(a.shape, dtype=np.result_type(a, float))
    for j in range(n):
        lower[j, j] = np.sqrt(a[j, j] - np.sum(lower[j, :j] * lower[j, :j]))
        for i in range(j + 1, n):
            lower[i, j] = (a[i, j] - np.sum(lower[i, :j] * lower[j, :j])) / lower[j, j]
    return lower


def _slogdet(a):
    """``(sign, log|det a|)`` with the sign of the real part: analytic near any real matrix
    whose determinant is not 0 (NumPy's complex slogdet takes the modulus)."""
    det = np.linalg.det(a)
    sign = np.sign(_re(det))
    return sign, np.log(det * sign)


def _linalg() -> _StandIn:
    """``np.linalg``: the norm, and the functions that are analytic in the entries."""
    members = {n: getattr(np.linalg, n) for n in ["solve", "inv", "det", "matrix_power"]}
    members.update(norm=_norm, multi_dot=np.linalg.multi_dot, LinAlgError=np.linalg.LinAlgError)
    members.update(cholesky=_cholesky, slogdet=_slogdet)
    return _StandIn("numpy.linalg", members)


def _logaddexp(x, y):
    """``np.logaddexp`` shifted by the maximum (by real part)."""
    t = _pairwise(lambda u, v: u >= v)(x, y)
    return t + np.log(np.exp(x - t) + np.exp(y - t))


def _interp(x, xp, fp):
    """``np.interp`` with the segment chosen by real parts, linear (analytic) inside it."""
    xs, xp, fp = np.atleast_1d(np.asarray(x)), np.asarray(xp), np.asarray(fp)
    out = np.empty(xs.shape, dtype=np.result_type(xs, xp, fp, float))
    for k, v in enumerate(xs.flat):
        r = _re(v)
        if r < _re(xp[0]) or r >= _re(xp[-1]):
            out.flat[k] = fp[0] if r < _re(xp[0]) else fp[-1]
            continue
        j = np.searchsorted(_re(xp), r, side="right") - 1
        out.flat[k] = fp[j] + (fp[j + 1] - fp[j]) * (v - xp[j]) / (xp[j + 1] - xp[j])
    return out[0] if np.ndim(x) == 0 else out


def _numpy_constructors() -> dict:
    """Array constructors whose float arrays are complex128 (``empty`` as ``zeros``)."""
    positions = dict(array=1, asarray=1, asanyarray=1, ascontiguousarray=1, zeros=1, ones=1,
                     full=2, zeros_like=1, ones_like=1, full_like=2, identity=1, eye=3,
                     arange=3, linspace=5)  # fmt: skip
    members = {name: _creating(getattr(np, name), at) for name, at in positions.items()}
    members.update(empty=members["zeros"], empty_like=members["zeros_like"])
    return members


def _numpy_ordered() -> dict:
    """Stand-ins that order or take moduli, by real part."""
    maximum, minimum = _pairwise(lambda x, y: x >= y), _pairwise(lambda x, y: x <= y)
    largest, smallest = _extreme(np.argmax), _extreme(np.argmin)
    return dict(
        abs=_abs, absolute=_abs, fabs=_abs, max=largest, amax=largest, min=smallest,
        amin=smallest, maximum=maximum, fmax=maximum, minimum=minimum, fmin=minimum,
        clip=_clip, sort=_sort, median=_median, logaddexp=_logaddexp,
        quantile=_quantile, percentile=lambda x, q, axis=None: _quantile(x, q / 100.0, axis),
        ptp=lambda x, axis=None: largest(x, axis) - smallest(x, axis),
        var=_var, cov=_cov, std=lambda x, *args, **kw: np.sqrt(_var(x, *args, **kw)),
        vdot=lambda x, y: np.sum(np.ravel(x) * np.ravel(y)),
        hypot=lambda x, y: np.sqrt(x * x + y * y), arctan2=_atan2, cbrt=_cbrt,
        mod=_mod, remainder=_mod, fmod=_fmod, floor_divide=_on_real(np.floor_divide),
        interp=_interp,
    )  # fmt: skip


def _numpy_members() -> dict:
    """The ``numpy`` stand-ins by name. In the real program ``real``/``conj`` are the
    identity and ``imag`` is zero: so they are here."""
    members = {name: getattr(np, name) for name in _NUMPY_AS_IS if hasattr(np, name)}
    members.update({name: _on_real(getattr(np, name)) for name in _NUMPY_ON_REAL})
    members.update(_numpy_constructors(), **_numpy_ordered())
    members.update(
        degrees=lambda x: x * (180.0 / np.pi), rad2deg=lambda x: x * (180.0 / np.pi),
        radians=lambda x: x * (np.pi / 180.0), deg2rad=lambda x: x * (np.pi / 180.0),
        real=lambda x: x, conj=lambda x: x, conjugate=lambda x: x,
        imag=lambda x: _promoted(np.zeros_like(_re(x))),
        angle=lambda x: _promoted(np.where(_re(x) < 0, np.pi, 0.0)),
        float64=_Float, float32=_Float, double=_Float, linalg=_linalg(),
    )  # fmt: skip
    return members


# -- executing a program -----------------------------------------------------------

_PLAIN_IMPORTS = {"__future__", "typing", "functools", "itertools", "operator"}


def _stand_in_modules() -> dict:
    """The modules a program imports, by name."""
    numpy = _StandIn("numpy", _numpy_members())
    return {"math": _StandIn("math", _math_members()), "numpy": numpy, "numpy.linalg": numpy.linalg}


def _importer(modules: dict):
    """``__import__`` giving the stand-ins; other modules but a few plain ones refused."""

    def stand_in_import(name, globals=None, locals=None, fromlist=(), level=0):
        top = name.partition(".")[0]
        if level == 0 and top in modules:
            if fromlist and name not in modules:
                raise NotImplementedError(f"{name} has no complex-step stand-in")
            return modules[name] if fromlist else modules[top]
        if level == 0 and top in _PLAIN_IMPORTS:
            return builtins.__import__(name, globals, locals, fromlist, level)
        raise NotImplementedError(f"import {name}: no complex-step stand-in")

    return stand_in_import


def _namespace() -> dict:
    """Globals for a program's module: builtins with the complex-safe stand-ins."""
    names = dict(vars(builtins))
    names.update(
        abs=_abs,
        max=_by_real(builtins.max),
        min=_by_real(builtins.min),
        float=_Float,
        int=_Int,
        round=_round,
        divmod=_divmod,
        __import__=_importer(_stand_in_modules()),
    )
    return {"__builtins__": names, "__name__": "complex_step_program"}


def _function(source: str, name: str, namespace: dict):
    """The function ``name`` of ``source`` executed as a module in ``namespace``."""
    exec(compile(source, f"<complex-step {name}>", "exec"), namespace)
    return namespace[name]


def _copied(args):
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]


def _complexified(arg):
    """A float argument (scalar or array) as complex128; others as they are."""
    if isinstance(arg, np.ndarray) and arg.dtype.kind == "f":
        return arg.astype(np.complex128)
    if isinstance(arg, (builtins.float, np.floating)):
        return np.complex128(arg)
    return arg


def _evaluate(f, args) -> complex:
    """``f(*args)`` as a complex number; any failure or lost imaginary part refused."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComplexWarning)
        try:
            value = np.asarray(f(*_copied(args)))
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - the program is not complex-safe
            raise NotImplementedError(f"complex evaluation failed: {exc!r}") from exc
    if value.size != 1:
        raise ValueError(f"the program returns an array of shape {value.shape}")
    return complex(value.reshape(-1)[0])


def _derivative(f, args, k, index, h, expected) -> float:
    """``Im f(x + i h e) / h`` for element ``index`` of argument ``k``."""
    shifted = _copied(args)
    if isinstance(shifted[k], np.ndarray):
        shifted[k][index] += 1j * h
    else:
        shifted[k] = shifted[k] + 1j * h
    value = _evaluate(f, shifted)
    if not np.isclose(value.real, expected, rtol=1e-9, atol=1e-12, equal_nan=True):
        raise NotImplementedError(f"the stand-ins change the value: {value.real} != {expected}")
    return value.imag / h


def complex_step_gradient(source: str, args, argnums, h: float = 1e-20, name: str = "f"):
    """Complex-step gradients of ``name`` in ``source`` at ``args`` with respect to the
    float arguments ``argnums`` (a float per scalar, an array per array), one evaluation
    per element. Raises ``NotImplementedError`` when the program is not complex-safe."""
    plain = _function(source, name, {"__name__": "complex_step_plain"})
    expected = complex(np.asarray(plain(*_copied(args))).reshape(-1)[0]).real
    f = _function(source, name, _namespace())
    base = [_complexified(a) for a in args]
    grads = []
    for k in argnums:
        if not np.issubdtype(np.asarray(args[k]).dtype, np.floating):
            raise TypeError(f"argument {k} is not a float or a float array")
        shape = np.shape(args[k])
        g = np.zeros(shape)
        for index in np.ndindex(*shape):
            g[index] = _derivative(f, base, k, index, h, expected)
        grads.append(g if shape else builtins.float(g))
    return grads

"""numba's ``njit``, ``vectorize`` and ``prange`` for riskeval's kernels, loaded on first use.

``njit`` and ``vectorize`` record the function and its options; numba is imported, and the kernel
compiled or loaded from numba's on-disk cache (``cache=True``), the first time the kernel is called
or its compiled form is needed.  Importing a module of kernels therefore costs no numba start-up
(importing numba and preparing its compiler take longer than importing numpy and pandas), and a
process that calls no kernel never imports numba.  When a kernel is loaded, the kernels, ufuncs and
``prange`` its code names are loaded with it and put in place of the placeholders in its module, so
that numba compiles the same code as if they had been defined with numba's decorators.

The first compilation of one of riskeval's kernels in a process writes one line on stderr naming
the part compiled (:func:`compile_notice`: the evaluation kernels, the risk measures' ...), once per
part: each command compiles the kernels it uses, so a fresh install's first ``evaluate`` and first
``risk`` each announce their own.  A kernel found in numba's cache (``NUMBA_CACHE_DIR`` where set) is
loaded, not compiled, and writes nothing.

The number of threads is numba's own setting (``NUMBA_NUM_THREADS`` or ``numba.set_num_threads``);
riskeval never changes it.  Whether a kernel runs on threads or on one is decided by the size of its
input alone (:data:`SERIAL_CELLS`), never by the machine's load, so the same inputs give the same
numbers on any machine.

Processes: numba's default threading layer on Linux is GNU OpenMP, which terminates a child
*forked* from a process whose threads have started.  Start worker processes of your own with the
``spawn`` or ``forkserver`` method (``multiprocessing.get_context("spawn")``; ``forkserver`` is
Python's default on Linux from 3.14), or choose a fork-safe layer with
``NUMBA_THREADING_LAYER=forksafe`` (numba's ``workqueue``, or ``tbb`` where installed).
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

# Reassociation lets LLVM vectorise the reductions (sums in a different order, same value up to
# rounding); no assumption about NaN or inf is made, the inputs are validated finite anyway.
FAST = {"reassoc", "contract", "nsz"}  # pragma: no mutate

#: Below this many matrix cells a kernel runs on one thread: waking the thread pool costs more
#: than the work (``benchmarks/bench_risk_table.py`` measures both compilations).
SERIAL_CELLS = 1 << 16

#: Below this many matrix cells the risk table's sums (paired and chi-square) are numpy
#: expressions: numba's start-up in a process (its import and compiler set-up, about 0.6 CPU-s)
#: costs more than the work, and ``riskeval risk`` on a table of TREC runs imports no numba.
NUMPY_CELLS = 1 << 14

#: The parts of riskeval whose kernels are compiled together, by the module a kernel is defined in
#: (the first prefix that matches): what the compile notice names, and the seconds of wall time its
#: first compilation takes on a 2-core machine.  ``benchmarks/bench_startup.py --first-compile``
#: measures the evaluation kernels (``riskeval evaluate``, qrels reader included) and the risk
#: measures' (``riskeval risk`` of a table above :data:`NUMPY_CELLS`); the other parts are
#: announced with the larger of the two.
PARTS: tuple[tuple[str, str, int], ...] = (
    ("riskeval.evaluation.", "the evaluation kernels", 10),
    ("riskeval.io.qrels", "the evaluation kernels", 10),
    ("riskeval.core.", "the risk measures' kernels", 5),
    ("riskeval.inference.", "the inference kernels", 10),
    ("riskeval.ltr.", "the learning-to-rank kernels", 10),
    ("riskeval.io.letor", "the learning-to-rank kernels", 10),
    ("riskeval.", "the readers' kernels", 10),
)


def compile_notice(module: str) -> str | None:
    """The line written on stderr when a kernel of ``module`` is first compiled, naming its part
    (:data:`PARTS`), or ``None`` for a module outside riskeval::

        riskeval: compiling the evaluation kernels, once: about 10 s; later runs load them from the cache.
    """
    part = next(((what, s) for prefix, what, s in PARTS if module.startswith(prefix)), None)
    if part is None:
        return None
    return f"riskeval: compiling {part[0]}, once: about {part[1]} s; later runs load them from the cache.\n"


class _Deferred:
    """A function to compile with numba on first use: ``numba.njit(**options)`` or
    ``numba.vectorize(signatures, **options)``."""

    def __init__(self, func: Callable[..., Any], options: dict[str, Any], signatures: Any = None):
        functools.update_wrapper(self, func)
        self.py_func = func
        self.targetoptions = options
        self._signatures = signatures
        self._compiled: Any = None

    def load(self) -> Any:
        """The numba dispatcher (or ufunc) of the function, made on the first call; it takes the
        placeholder's place in its module."""
        if self._compiled is None:
            numba = _load_numba()
            _bind(self.py_func)
            if self._signatures is None:
                self._compiled = numba.njit(**self.targetoptions)(self.py_func)
            else:
                self._compiled = numba.vectorize(self._signatures, **self.targetoptions)(self.py_func)
            module = sys.modules.get(self.__module__)
            if getattr(module, self.__name__, None) is self:
                setattr(module, self.__name__, self._compiled)
        return self._compiled

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.load(), name)

    def __repr__(self) -> str:
        state = "loaded" if self._compiled is not None else "not loaded yet"
        return f"<riskeval kernel {self.__module__}.{self.__qualname__} ({state})>"


def njit(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit`` loaded on first use: ``@njit`` or ``@njit(cache=True, parallel=True, ...)``."""
    if func is None:
        return lambda f: _Deferred(f, options)
    return _Deferred(func, options)


def vectorize(signatures: list[str], **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.vectorize(signatures, **options)`` loaded on first use."""
    return lambda f: _Deferred(f, options, signatures)


#: ``numba.prange``: ``range`` in Python; a kernel's module holds numba's own once the kernel is loaded
prange = range


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _bind(func: Callable[..., Any]) -> None:
    """Put numba's objects in place of the placeholders that ``func``'s code names, in its module
    (``name``) and in riskeval's modules it names (``module.name``)."""
    names = set(_names(func.__code__))
    modules = [func.__globals__.get(name) for name in names]
    scopes = [
        vars(m) for m in modules if isinstance(m, types.ModuleType) and m.__name__.startswith("riskeval.")
    ]
    for scope in (func.__globals__, *scopes):
        for name in names & scope.keys():
            if scope[name] is prange:
                scope[name] = _load_numba().prange
            elif isinstance(scope[name], _Deferred):
                scope[name] = scope[name].load()


def _load_numba() -> Any:
    """numba, imported on the first kernel; the compile notice is registered with it."""
    global _NUMBA
    if _NUMBA is None:
        import numba
        from numba.core import event

        class _CompileNotice(event.Listener):
            def on_start(self, ev: Any) -> None:
                _notice(ev.data["dispatcher"])

            def on_end(self, ev: Any) -> None:
                pass

        _NUMBA = numba
        event.register("numba:compile", _CompileNotice())
    return _NUMBA


_NUMBA: Any = None

#: True: no compile notice is written (the test suite sets it, so that no test's stderr depends
#: on the state of numba's cache).
quiet = False
#: The notices this process has written, one per part (:data:`PARTS`).
announced: set[str] = set()


def _notice(dispatcher: Any) -> None:
    """Writes :func:`compile_notice` on stderr when numba starts compiling a riskeval kernel, once
    per part and process.  numba sends ``numba:compile`` only for a compilation, never for a kernel
    it loads from its on-disk cache, so a process whose kernels are all cached writes nothing."""
    line = compile_notice(str(dispatcher.py_func.__module__))
    if line is not None and not quiet and line not in announced:
        announced.add(line)
        sys.stderr.write(line)
        sys.stderr.flush()


def serial_twin(kernel: Any) -> Callable[..., Any]:
    """The serial compilation of a ``parallel=True`` kernel (``prange`` runs as ``range``), with the
    kernel's own ``fastmath`` and ``error_model`` settings.

    The twin is a copy of the Python function under its own name, so that numba's on-disk cache
    keeps the two compilations apart.
    """
    f = kernel.py_func
    twin = types.FunctionType(
        f.__code__, f.__globals__, f"{f.__name__}_serial", f.__defaults__, f.__closure__
    )
    twin.__qualname__ = f"{f.__qualname__}_serial"
    twin.__module__, twin.__doc__ = f.__module__, f.__doc__
    options = kernel.targetoptions
    return njit(
        cache=True,
        fastmath=options.get("fastmath", False),
        error_model=options.get("error_model", "python"),
    )(twin)


def by_size(kernel: Any, work: int, threshold: int = SERIAL_CELLS) -> Any:
    """``kernel`` for ``work`` ≥ ``threshold`` (cells, or whatever unit the caller counts), else
    its serial compilation (made once, on first use, and cached on disk like the kernel).  Under
    ``NUMBA_DISABLE_JIT=1`` a loaded kernel is its Python function, which is returned as it is."""
    if work >= threshold or not hasattr(kernel, "py_func"):
        return kernel
    if kernel.py_func not in _TWINS:
        _TWINS[kernel.py_func] = serial_twin(kernel)
    return _TWINS[kernel.py_func]


_TWINS: dict[Any, Any] = {}

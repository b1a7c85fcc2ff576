"""einrow: numpy's einsum over arrays read in place, and the shape engine of tensor programs.

- ``einsum`` / ``einsum_path``: numpy's functions, computed by einrow's strided kernel on the
  caller's arrays (any strides, no copies) and written into ``out`` when given.
- ``contract_expression``: opt_einsum's reusable expression (constants evaluated once);
  ``tensordot`` and ``transpose`` with ``einsum`` make einrow an opt_einsum backend
  (``opt_einsum.contract(..., backend="einrow")``).
- ``Graph``, ``infer``, ``parse``: shape inference for frameworks (OCANNL's labels specs and
  einsum specs), with each step's indexing plan, compiled and run on numpy buffers.
- ``ShapeError`` (a ``ValueError``) and one subclass per error code: every error einrow
  reports, with ``code``, ``message``, ``span`` and the rendered text as ``str(err)``.
- ``einrow.strategies`` (needs Hypothesis: ``pip install "einrow[strategies]"``): strategies
  that fuzz a framework's own shape rules against einrow's verdicts.
"""

from ._einrow import *  # noqa: F401,F403
from ._einrow import __all__ as _native_all
from ._backend import tensordot, transpose

# The extension's helpers (`einrow.strategies`, unpickling) start with `_`: not part of the
# surface.
__all__ = [n for n in _native_all if not n.startswith("_")] + ["tensordot", "transpose"]

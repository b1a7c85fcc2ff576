"""Hypothesis strategies for fuzzing a framework's own shape rules against einrow.

Every case comes with einrow's verdict: the result's shape and numpy element type, or the
class of the error numpy raises (``"mismatch"``, ``"rank"``, ``"bounds"``, ``"value"``,
``"elems"``, ``"label"``, ``"arity"``, ``"syntax"``). Cases follow numpy 2's rules, so a
framework that follows numpy is judged without translating anything; einrow draws and judges
(the extension), Hypothesis chooses and shrinks (each choice is a bounded integer Hypothesis
shrinks towards the simplest case).

- ``einsum_cases()``: subscripts, shapes and dtypes valid under numpy's rules;
- ``broadcastable_shapes()``: shapes that broadcast, plain or with shared row variables;
- ``programs()``: programs of numpy operations, each step's operands earlier results or
  fresh arrays, with every step's verdict; ``Program.replay`` runs one through a framework
  and raises ``Disagreement`` at the first step where the framework differs;
- ``near_valid(strategy)``: the cases of ``strategy`` one mutation away from valid;
- ``verdict()`` and ``judge()``: einrow's answer for one operation, and whether a claimed
  result is that answer.

Install with ``pip install "einrow[strategies]"`` (Hypothesis is an optional dependency).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Optional, Sequence

import importlib.util

if importlib.util.find_spec("hypothesis") is None:  # pragma: no cover - the environment's
    raise ImportError(
        'einrow.strategies needs Hypothesis: pip install "einrow[strategies]" '
        "(or pip install hypothesis)"
    )

from hypothesis import strategies as st  # noqa: E402

# The extension's private helpers: typed here by use, not in the public stubs (`__init__.pyi`).
from ._einrow import (  # type: ignore[import-not-found]
    _fuzz_draw,
    _fuzz_evaluate,
    _fuzz_mutate,
    _fuzz_verdict,
)

__all__ = [
    "EinsumCase",
    "BroadcastCase",
    "Step",
    "Program",
    "Verdict",
    "Disagreement",
    "einsum_cases",
    "broadcastable_shapes",
    "programs",
    "near_valid",
    "verdict",
    "judge",
    "OPS",
    "DTYPES",
]

#: The numpy functions programs draw from.
OPS = (
    "add", "matmul", "einsum", "concatenate", "stack", "transpose", "sum", "expand_dims",
    "squeeze", "reshape",
)

#: numpy's element types drawn by default (``"bfloat16"``, from ml_dtypes, on request).
DTYPES = (
    "float64", "float32", "int64", "bool", "int8", "uint8", "int16", "int32", "float16",
)


def _drawer(draw):
    """Hypothesis' draw as einrow's source of choices: an integer in ``0..=hi``."""
    return lambda hi: draw(st.integers(min_value=0, max_value=hi))


def _shape(value) -> Optional[tuple]:
    return None if value is None else tuple(value)


class Verdict:
    """einrow's answer for one operation: ``result`` (a shape tuple) and ``dtype``, or
    ``error`` (a code) and ``message``; ``reached`` is false for a step after a refused one."""

    def __init__(self, outcome: dict):
        self.result = _shape(outcome.get("shape"))
        self.dtype: Optional[str] = outcome.get("dtype")
        self.error: Optional[str] = outcome.get("error")
        self.message: Optional[str] = outcome.get("message")
        self.reached = not outcome.get("unreached", False)

    @property
    def ok(self) -> bool:
        """Whether numpy computes the operation."""
        return self.reached and self.error is None

    def __repr__(self) -> str:
        if not self.reached:
            return "Verdict(not reached)"
        if self.error is not None:
            return f"Verdict(error={self.error!r}: {self.message})"
        return f"Verdict({self.result}, {self.dtype})"


class Step:
    """One step of a program: numpy function ``op`` over earlier values ``args`` with keyword
    ``params`` as numpy names them; the operands' ``shapes`` and ``dtypes``; einrow's verdict
    (``result``, ``dtype``, ``error``, ``reached``)."""

    def __init__(self, index: int, value: dict, outcomes: list):
        self.index = index
        self.op: str = value["op"]
        self.args: list[int] = list(value["args"])
        self.params: dict = {k: v for k, v in value.items() if k not in ("op", "args")}
        operands = [outcomes[a] for a in self.args]
        self.shapes = [_shape(o.get("shape")) for o in operands]
        self.dtypes = [o.get("dtype") for o in operands]
        self.verdict = Verdict(outcomes[index])
        self.result, self.dtype = self.verdict.result, self.verdict.dtype
        self.error, self.reached = self.verdict.error, self.verdict.reached

    def arguments(self, operands: Sequence[Any]) -> tuple[list, dict]:
        """numpy's positional and keyword arguments for this step over ``operands``:
        ``np.concatenate([a, b], axis=-1)``, ``np.einsum("ij->ji", a)``,
        ``np.transpose(a, axes=(1, 0))``, ``np.reshape(a, (2, -1))``..."""
        p, ops = self.params, list(operands)
        if self.op in ("add", "matmul"):
            return ops, {}
        if self.op == "einsum":
            return [p["subscripts"], *ops], {}
        if self.op in ("concatenate", "stack"):
            return [ops], {"axis": p["axis"]}
        if self.op == "transpose":
            axes = p["axes"]
            return ops, {"axes": None if axes is None else tuple(axes)}
        if self.op == "sum":
            axis = p["axis"]
            return ops, {"axis": tuple(axis) if isinstance(axis, list) else axis,
                         "keepdims": p["keepdims"]}
        if self.op == "expand_dims":
            return [*ops, p["axis"]], {}
        if self.op == "squeeze":
            return ops, {"axis": p["axis"]}
        if self.op == "reshape":
            return [*ops, tuple(p["shape"])], {}
        raise ValueError(f"unknown operation {self.op!r}")

    def call(self, fn: Callable, operands: Sequence[Any]):
        """``fn`` called as numpy's function of this step is called on ``operands``."""
        args, kwargs = self.arguments(operands)
        return fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Step({self.op}, shapes={self.shapes}, params={self.params}, {self.verdict})"


class Disagreement(AssertionError):
    """A framework and einrow disagree on a step: ``step``, ``expected`` (einrow's
    ``Verdict``), ``got`` (the framework's shape, or its exception) and the ``program``."""

    def __init__(self, program: "Program", step: Step, got: Any):
        self.program, self.step, self.expected, self.got = program, step, step.verdict, got
        names = [program.name(a) + f" {s}" for a, s in zip(step.args, step.shapes)]
        said = f"raised {got!r}" if isinstance(got, BaseException) else f"gave {got}"
        super().__init__(
            f"{program.name(step.index)} = {step.op}({', '.join(names)}, {step.params}): "
            f"einrow says {step.verdict}, the framework {said}\nprogram:\n{program.text}"
        )


def _zeros(shape, dtype):
    import numpy as np

    if dtype == "bfloat16":
        import ml_dtypes

        return np.zeros(shape, dtype=ml_dtypes.bfloat16)
    return np.zeros(shape, dtype=dtype)


class Program:
    """A program of numpy operations with einrow's verdict on every value: ``leaves`` (index
    to ``(shape, dtype)``), ``steps`` (``Step`` objects), ``text`` (numpy code with each
    step's verdict); after ``near_valid``, ``mutated`` (the index of the edited step) and
    ``mutation`` (what changed)."""

    def __init__(self, data: dict, kind: str = "program", config: str = "{}"):
        self._data, self._kind, self._config = data, kind, config
        outcomes = data["outcomes"]
        self.values: list[dict] = data["values"]
        self.leaves = {i: (tuple(v["shape"]), v["dtype"])
                       for i, v in enumerate(self.values) if "op" not in v}
        self.steps = [Step(i, v, outcomes) for i, v in enumerate(self.values) if "op" in v]
        self.text: str = data["text"]
        self.mutated: Optional[int] = data.get("mutated")
        self.mutation: Optional[str] = data.get("mutation")

    def name(self, i: int) -> str:
        """The name of value ``i`` in ``text``: ``x3`` for a leaf, ``t3`` for a step."""
        return f"{'x' if i in self.leaves else 't'}{i}"

    def to_json(self) -> str:
        """The program as JSON (``Program.from_json`` and einrow's Rust ``replay`` read it)."""
        return json.dumps({"values": self.values})

    @staticmethod
    def from_json(text: str) -> "Program":
        """A saved program, with einrow's verdicts computed again."""
        data = json.loads(text)
        return Program(_fuzz_evaluate(json.dumps(data.get("program", data))))

    def replay(
        self,
        framework: Any = None,
        *,
        call: Optional[Callable[[Step, list], Any]] = None,
        leaf: Optional[Callable[[tuple, str], Any]] = None,
        shape: Callable[[Any], tuple] = lambda t: tuple(t.shape),
        dtype: Optional[Callable[[Any], str]] = None,
    ) -> int:
        """Runs the program through a framework and judges each step einrow reaches: a step
        numpy computes must give einrow's shape (and, with ``dtype``, type); a step numpy
        refuses must raise. Raises ``Disagreement`` at the first difference; returns how many
        steps were judged.

        ``framework`` is a namespace whose functions have numpy's names and signatures
        (default: numpy itself); ``call(step, operands)`` replaces it for anything else.
        ``leaf(shape, dtype)`` makes an input (default: ``numpy.zeros``); ``shape`` and
        ``dtype`` read a result's shape and numpy type name."""
        if call is None:
            ns = framework
            if ns is None:
                import numpy as ns
            call = lambda step, xs: step.call(getattr(ns, step.op), xs)  # noqa: E731
        leaf = leaf or _zeros
        made: dict[int, Any] = {i: leaf(s, d) for i, (s, d) in self.leaves.items()}
        judged = 0
        for step in self.steps:
            if not step.reached or any(a not in made for a in step.args):
                continue
            judged += 1
            try:
                out = call(step, [made[a] for a in step.args])
            except Exception as exc:  # noqa: BLE001 - any error of the framework counts
                if step.error is None:
                    raise Disagreement(self, step, exc) from exc
                continue
            if step.error is not None:
                raise Disagreement(self, step, shape(out))
            got = tuple(shape(out))
            if got != step.result or (dtype is not None and str(dtype(out)) != step.dtype):
                raise Disagreement(self, step, got if dtype is None else (got, dtype(out)))
            made[step.index] = out
        return judged

    def _mutated(self, draw) -> "Program":
        data = _fuzz_mutate(self._kind, json.dumps({"values": self.values}), _drawer(draw),
                            self._config)
        return type(self)(data, self._kind, self._config)

    def __repr__(self) -> str:
        head = f"# mutated step t{self.mutated}: {self.mutation}\n" if self.mutation else ""
        return f"{type(self).__name__}(\n{head}{self.text})"


class EinsumCase(Program):
    """An einsum case: ``subscripts``, operand ``shapes`` and ``dtypes``, and einrow's
    verdict (``result``, ``dtype``, ``error``) as numpy's einsum gives it."""

    def __init__(self, data: dict, kind: str = "einsum", config: str = "{}"):
        super().__init__(data, kind, config)
        step = self.steps[-1]
        self.step = step
        self.subscripts: str = step.params["subscripts"]
        # An einsum step's operands always have shapes (only a program's leaves may not).
        self.shapes: list = [s for s in step.shapes if s is not None]
        assert len(self.shapes) == len(step.shapes), "an einsum case without operand shapes"
        self.dtypes = step.dtypes
        self.result, self.dtype, self.error = step.result, step.dtype, step.error
        self.message = step.verdict.message

    def operands(self, make: Optional[Callable[[tuple, str], Any]] = None) -> list:
        """Arrays of the operands' shapes and types (default: ``numpy.zeros``)."""
        make = make or _zeros
        return [make(s, d) for s, d in zip(self.shapes, self.dtypes)]

    def __repr__(self) -> str:
        v = self.step.verdict
        return f"EinsumCase({self.subscripts!r}, shapes={self.shapes}, dtypes={self.dtypes}, {v})"


class BroadcastCase:
    """Shapes to broadcast: ``shapes``, the ``signature`` they follow (``None``: plain
    broadcasting), and einrow's verdict: ``result`` (the broadcast shape, or of the one row
    variable's parts), ``rows`` (each row variable's broadcast), ``letters`` (each core
    letter's size), or ``error`` and ``message``."""

    def __init__(self, data: dict, config: str = "{}"):
        self._config = config
        self.signature: Optional[str] = data.get("signature")
        self.shapes = [tuple(s) for s in data["shapes"]]
        self.result = _shape(data.get("result"))
        self.rows = {k: tuple(v) for k, v in (data.get("rows") or {}).items()}
        self.letters = dict(data.get("letters") or {})
        self.error: Optional[str] = data.get("error")
        self.message: Optional[str] = data.get("message")

    def _mutated(self, draw) -> "BroadcastCase":
        case = json.dumps({"shapes": [list(s) for s in self.shapes]})
        return BroadcastCase(_fuzz_mutate("broadcast", case, _drawer(draw), self._config),
                             self._config)

    def __repr__(self) -> str:
        sig = f"{self.signature!r}, " if self.signature else ""
        out = f"error={self.error!r}" if self.error else f"result={self.result}"
        return f"BroadcastCase({sig}shapes={self.shapes}, {out})"


def _config(**settings) -> str:
    return json.dumps({k: v for k, v in settings.items() if v is not None})


def einsum_cases(
    *,
    max_operands: int = 4,
    max_rank: int = 4,
    max_size: int = 5,
    zero_sizes: bool = True,
    dtypes: Optional[Sequence[str]] = None,
) -> st.SearchStrategy[EinsumCase]:
    """numpy einsum cases valid under numpy's rules: diagonals (a label repeated in a term),
    ``...`` over broadcast axes, size-0 and size-1 axes, labels broadcast across operands,
    implicit and explicit outputs (explicit ones may keep a diagonal label), up to
    ``max_operands`` operands of up to ``max_rank`` axes, element types from ``dtypes``.

    >>> from hypothesis import given
    >>> import numpy as np
    >>> @given(einsum_cases())
    ... def test_einsum_shapes(case):
    ...     assert np.einsum(case.subscripts, *case.operands()).shape == case.result
    >>> test_einsum_shapes()
    """
    config = _config(max_operands=max_operands, max_rank=max_rank, max_size=max_size,
                     zero_sizes=zero_sizes, dtypes=list(dtypes or DTYPES))

    @st.composite
    def cases(draw):
        return EinsumCase(_fuzz_draw("einsum", _drawer(draw), config), "einsum", config)

    return cases()


def broadcastable_shapes(
    num_shapes: int = 2,
    *,
    signature: Optional[str] = None,
    max_rank: int = 4,
    max_size: int = 5,
    zero_sizes: bool = True,
) -> st.SearchStrategy[BroadcastCase]:
    """Shapes that broadcast as numpy broadcasts. Without a signature, ``num_shapes`` shapes
    and their broadcast (``result``). A signature writes one term per shape of core letters
    and at most one row variable (``...`` or ``..name..``): ``"..b..ij,..b..jk"`` draws two
    shapes whose ``..b..`` parts broadcast (``rows["b"]``) around core axes of one size per
    letter (``letters``), as a numpy gufunc sees them.

    >>> from hypothesis import given
    >>> import numpy as np
    >>> @given(broadcastable_shapes(3))
    ... def test_broadcast(case):
    ...     assert np.broadcast_shapes(*case.shapes) == case.result
    >>> test_broadcast()
    """
    config = _config(num_shapes=num_shapes, signature=signature, max_rank=max_rank,
                     max_size=max_size, zero_sizes=zero_sizes)

    @st.composite
    def cases(draw):
        return BroadcastCase(_fuzz_draw("broadcast", _drawer(draw), config), config)

    return cases()


def programs(
    *,
    ops: Optional[Sequence[str]] = None,
    max_steps: int = 6,
    max_rank: int = 4,
    max_size: int = 5,
    zero_sizes: bool = True,
    dtypes: Optional[Sequence[str]] = None,
    max_operands: int = 4,
) -> st.SearchStrategy[Program]:
    """Valid programs of numpy operations (``ops``: names from ``OPS``, default all): each
    step's operands are results of earlier steps (most often the latest) or fresh arrays
    made to fit; integer axes are written positive or negative; sizes include 0 and 1.

    >>> from hypothesis import given
    >>> @given(programs(ops=["concatenate", "transpose"]))
    ... def test_numpy_agrees(program):
    ...     program.replay()          # numpy itself as the framework
    >>> test_numpy_agrees()
    """
    config = _config(ops=list(ops or OPS), max_steps=max_steps, max_rank=max_rank,
                     max_size=max_size, zero_sizes=zero_sizes, dtypes=list(dtypes or DTYPES),
                     max_operands=max_operands)

    @st.composite
    def cases(draw):
        return Program(_fuzz_draw("program", _drawer(draw), config), "program", config)

    return cases()


def near_valid(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """The cases of ``strategy`` (``einsum_cases``, ``broadcastable_shapes`` or
    ``programs``) one mutation away from valid, with einrow's verdict after the mutation: a
    size changed, an axis inserted, removed or swapped, an axis parameter out of range, a
    permutation entry repeated, a letter added to or removed from einsum subscripts, an
    operand added or dropped, an element type changed. In a program, one step (the last one,
    for the simplest draws) is copied to the end with the mutation, so every step drawn stays
    valid and the last one probes the rules' boundary. Most mutations make numpy refuse; some
    do not, and the verdict says which.

    >>> from hypothesis import given
    >>> import numpy as np
    >>> @given(near_valid(broadcastable_shapes(2)))
    ... def test_broadcast_errors(case):
    ...     try:
    ...         got = np.broadcast_shapes(*case.shapes)
    ...     except ValueError:
    ...         assert case.error == "mismatch"
    ...     else:
    ...         assert got == case.result
    >>> test_broadcast_errors()
    """

    @st.composite
    def mutated(draw):
        case = draw(strategy)
        if not hasattr(case, "_mutated"):
            raise TypeError(f"near_valid takes einrow's strategies, not one drawing {case!r}")
        return case._mutated(draw)

    return mutated()


def verdict(
    op: str, shapes: Sequence[Sequence[int]], dtypes: Optional[Sequence[str]] = None, **params
) -> Verdict:
    """einrow's answer for the numpy function ``op`` on operands of these ``shapes`` (and
    ``dtypes``, default ``float64``), with numpy's keyword parameters.

    >>> verdict("matmul", [(1, 2, 3), (3, 4)]).result
    (1, 2, 4)
    >>> verdict("concatenate", [(2, 3), (3,)], axis=0).error
    'rank'
    """
    dtypes = list(dtypes or ["float64"] * len(shapes))
    outcome = _fuzz_verdict(json.dumps({"op": op, **params}), [list(s) for s in shapes], dtypes)
    return Verdict(outcome)


def judge(
    op: str,
    shapes: Sequence[Sequence[int]],
    claimed: Any,
    dtypes: Optional[Sequence[str]] = None,
    **params,
) -> Optional[str]:
    """Whether ``claimed`` is THE result of ``op`` on these operands: ``None`` when it is
    (a shape equal to einrow's, or an exception where numpy raises), else the reason.

    >>> judge("matmul", [(1, 2, 3), (3, 4)], (2, 4))
    'einrow says (1, 2, 4) float64, not (2, 4)'
    >>> judge("concatenate", [(2, 3), (3,)], ValueError("ranks differ"), axis=0) is None
    True
    """
    v = verdict(op, shapes, dtypes, **params)
    if isinstance(claimed, BaseException):
        return None if v.error else f"einrow says {v.result} {v.dtype}, not an error ({claimed!r})"
    if v.error:
        return f"einrow says error[{v.error}]: {v.message}, not {tuple(claimed)}"
    if tuple(claimed) != v.result:
        return f"einrow says {v.result} {v.dtype}, not {tuple(claimed)}"
    return None

"""Type stubs of einrow: numpy's einsum over arrays read in place, and the shape engine of
tensor programs (OCANNL's labels and einsum specs) for frameworks."""

from typing import Any, Callable, Literal, Mapping, Sequence, Union, final, overload

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = [
    "ArityError",
    "BadValueError",
    "BoundsError",
    "CompiledGraph",
    "ContractExpression",
    "CycleError",
    "DTypeError",
    "Dim",
    "ElemsError",
    "Executable",
    "Graph",
    "IncompletePathError",
    "Instance",
    "LabelError",
    "MismatchError",
    "Plan",
    "RankError",
    "ResourceError",
    "RowVar",
    "Scheme",
    "ShapeError",
    "SpecSyntaxError",
    "Tensor",
    "Training",
    "UnknownNameError",
    "UnknownStrategyError",
    "UnresolvedError",
    "UnsupportedError",
    "contract_expression",
    "einsum",
    "einsum_path",
    "einsum_vjp",
    "get_num_threads",
    "infer",
    "parse",
    "set_num_threads",
    "tensordot",
    "transpose",
]

_Strategy = Literal["greedy", "optimal", "dp", "auto"]
_PathStep = Union[str, tuple[int, ...]]
# False/None: no planning; True: greedy; a strategy; an explicit path
# ['einsum_path', (0, 1), ...]; (strategy, memory limit in elements).
_Optimize = Union[
    bool,
    None,
    _Strategy,
    list[_PathStep],
    tuple[_PathStep, ...],
    tuple[_Strategy, float],
]
_Order = Literal["C", "F", "A", "K", "c", "f", "a", "k"]
_Casting = Literal["no", "equiv", "safe", "same_kind", "unsafe"]
_Array = npt.ArrayLike
_Sizes = Sequence[int]
_RowItem = Union[int, "ellipsis", "RowVar"]
_Accum = Literal["+", "*", "max", "min", "="]
_Combine = Literal["*", "+", "-", "/", "max", "min", "first"]
_Compute = Union[_Accum, tuple[_Accum, _Combine | None]]
_Handle = Union["RowVar", "Dim"]
_VarSizes = Union[int, Sequence[int]]
_Buffers = Union[dict["Tensor", np.ndarray | None], list[np.ndarray | None]]
_Row = Union[Sequence[_RowItem], "RowVar"]

# --- numpy einsum -----------------------------------------------------------------------

@overload
def einsum(
    subscripts: str | bytes,
    /,
    *operands: _Array,
    out: np.ndarray | None = ...,
    optimize: _Optimize = ...,
    dtype: npt.DTypeLike | None = ...,
    order: _Order | None = ...,
    casting: _Casting | None = ...,
) -> Any: ...
@overload
def einsum(
    operand: _Array,
    sublist: Sequence[int | "ellipsis"],
    /,
    *operands_and_sublists: Any,
    out: np.ndarray | None = ...,
    optimize: _Optimize = ...,
    dtype: npt.DTypeLike | None = ...,
    order: _Order | None = ...,
    casting: _Casting | None = ...,
) -> Any: ...
def einsum_path(
    *operands: Any, optimize: _Optimize = ..., einsum_call: bool = ...
) -> tuple[list[Any], str]: ...
def einsum_vjp(
    subscripts: str, /, *operands: _Array, cotangent: _Array
) -> list[np.ndarray]: ...
def tensordot(
    a: _Array, b: _Array, axes: int | Sequence[int] | Sequence[Sequence[int]] = ...
) -> np.ndarray: ...
def transpose(a: _Array, axes: Sequence[int] | None = ...) -> np.ndarray: ...

# --- reusable expressions (opt_einsum's) ---------------------------------------------------

_ExprStrategy = Literal[
    "greedy", "optimal", "dp", "auto", "dynamic-programming", "auto-hq", "branch-all",
    "branch-2", "branch-1", "eager", "opportunistic",
]
_PathOptimizer = Callable[
    [list[frozenset[str]], frozenset[str], dict[str, int], int | None], Sequence[tuple[int, ...]]
]
_ExprOptimize = Union[
    bool, None, _ExprStrategy, _PathOptimizer, list[_PathStep], tuple[_PathStep, ...]
]

def contract_expression(
    subscripts: str | bytes | _Array | Sequence[int],
    *shapes: Sequence[int] | _Array,
    constants: Sequence[int] | None = ...,
    optimize: _ExprOptimize = ...,
    memory_limit: int | Literal["max_input"] | None = ...,
    use_blas: bool = ...,
    dtype: npt.DTypeLike | None = ...,
    order: _Order | None = ...,
    casting: _Casting | None = ...,
) -> ContractExpression: ...

@final
class ContractExpression:
    """A contraction built once for operand shapes, called on arrays as often as wanted."""

    def __call__(
        self,
        *arrays: _Array,
        out: np.ndarray | None = ...,
        backend: Literal["auto", "numpy", "einrow"] | None = ...,
    ) -> Any: ...
    @property
    def num_args(self) -> int: ...
    @property
    def contraction(self) -> str: ...
    @property
    def constants(self) -> list[int]: ...
    @property
    def path(self) -> list[tuple[int, ...]]: ...
    @property
    def shapes(self) -> list[tuple[int, ...]]: ...
    def to_json(self) -> str: ...
    @classmethod
    def from_json(cls, text: str) -> ContractExpression: ...

def set_num_threads(n: int | None = ...) -> None: ...
def get_num_threads() -> int: ...

# --- shape inference ----------------------------------------------------------------------

def infer(program: str) -> dict[str, tuple[int, ...]]: ...
def parse(spec: str) -> dict[str, Any]: ...

@final
class Tensor:
    """A tensor of a Graph."""

    @property
    def name(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class RowVar:
    """A row variable: axes several tensors share (a batch row)."""

    @property
    def name(self) -> str: ...
    @property
    def dims(self) -> tuple[int, ...]: ...
    @property
    def size(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Dim:
    """A label captured from a spec step: one axis."""

    @property
    def name(self) -> str: ...
    @property
    def dims(self) -> tuple[int, ...]: ...
    @property
    def size(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Graph:
    """A tensor program whose shapes einrow infers."""

    def __init__(self) -> None: ...
    def input(
        self,
        name: str,
        shape: str | _Sizes | None = ...,
        *,
        batch: _Row | None = ...,
        input: _Row | None = ...,
        output: _Row | None = ...,
    ) -> Tensor: ...
    def parameter(
        self,
        name: str,
        shape: str | _Sizes | None = ...,
        *,
        batch: _Row | None = ...,
        input: _Row | None = ...,
        output: _Row | None = ...,
    ) -> Tensor: ...
    def row_var(self, name: str) -> RowVar: ...
    def set_row_size(self, row: RowVar, size: int) -> None: ...
    def pointwise(self, *args: Tensor, name: str | None = ...) -> Tensor: ...
    def compose(self, a: Tensor, b: Tensor, *, name: str | None = ...) -> Tensor: ...
    def transpose(self, a: Tensor, *, name: str | None = ...) -> Tensor: ...
    def permute(self, spec: str, a: Tensor, *, name: str | None = ...) -> Tensor: ...
    def einsum(self, spec: str, *args: Tensor, name: str | None = ...) -> Tensor: ...
    def concat(self, spec: str, *args: Tensor, name: str | None = ...) -> Tensor: ...
    def numpy(self, subscripts: str, *args: Tensor, name: str | None = ...) -> Tensor: ...
    def batch_slice(self, a: Tensor, *, name: str | None = ...) -> Tensor: ...
    def solve(self) -> None: ...
    def shape(self, t: Tensor) -> tuple[int, ...]: ...
    def sizes(self, t: Tensor) -> dict[str, tuple[int, ...]]: ...
    def shape_string(self, t: Tensor) -> str: ...
    def tensors(self) -> list[Tensor]: ...
    def warnings(self) -> list[str]: ...
    def plan(
        self,
        t: Tensor,
        *,
        accum: _Accum = ...,
        combine: _Combine | None = ...,
    ) -> Plan: ...
    def row_of(self, t: Tensor, row: Literal["batch", "input", "output"]) -> RowVar: ...
    def capture(
        self, spec: str, *args: Tensor, names: Sequence[str], name: str | None = ...
    ) -> tuple[Tensor, list[_Handle]]: ...
    def set_dim(self, handle: _Handle, size: int) -> None: ...
    def set_equal(self, a: _Handle, b: _Handle) -> None: ...
    def solve_scheme(self, *vars: RowVar) -> Scheme: ...
    def compile(self, *, compute: dict[Tensor, _Compute] | None = ...) -> CompiledGraph: ...
    def training(
        self,
        loss: Tensor,
        params: Sequence[Tensor],
        *,
        compute: dict[Tensor, _Compute] | None = ...,
    ) -> Training: ...
    def to_json(self) -> str: ...
    @classmethod
    def from_json(cls, text: str) -> Graph: ...

@final
class Training:
    """Forward and backward of a solved graph, compiled once: the loss and its gradients."""

    @property
    def params(self) -> list[Tensor]: ...
    @property
    def leaves(self) -> list[Tensor]: ...
    @property
    def arena_len(self) -> int: ...
    @property
    def unplanned_len(self) -> int: ...
    def run(
        self,
        values: dict[Tensor, np.ndarray],
        *,
        forward: Callable[[Tensor, np.ndarray], object]
        | Mapping[Tensor, Callable[[Tensor, np.ndarray], object]]
        | None = ...,
        backward: Callable[[Tensor, np.ndarray, np.ndarray], object]
        | Mapping[Tensor, Callable[[Tensor, np.ndarray, np.ndarray], object]]
        | None = ...,
        activations: Mapping[
            Tensor, Literal["relu", "elu", "sigmoid", "tanh", "softplus"]
        ]
        | None = ...,
    ) -> tuple[np.ndarray, list[np.ndarray]]: ...

@final
class Scheme:
    """A graph solved once with some row variables symbolic."""

    @property
    def vars(self) -> list[RowVar]: ...
    @property
    def tensor_count(self) -> int: ...
    @property
    def steps(self) -> list[Tensor]: ...
    @property
    def warnings(self) -> list[str]: ...
    def shape_string(self, t: Tensor) -> str: ...
    def is_rank_fixed(self, var: RowVar) -> bool: ...
    def min_size(self, var: RowVar) -> int: ...
    def instantiate(
        self, sizes: dict[RowVar | str, _VarSizes] | Sequence[_VarSizes]
    ) -> Instance: ...

@final
class Instance:
    """A scheme for concrete sizes of its variables."""

    @property
    def tensor_count(self) -> int: ...
    @property
    def steps(self) -> list[Tensor]: ...
    def shape(self, t: Tensor) -> tuple[int, ...]: ...
    def sizes(self, t: Tensor) -> dict[str, tuple[int, ...]]: ...
    def labels(self, t: Tensor) -> dict[str, int]: ...
    def dims(self, handle: _Handle) -> tuple[int, ...]: ...
    def size(self, handle: _Handle) -> int: ...
    def plan(
        self, t: Tensor, *, accum: _Accum = ..., combine: _Combine | None = ...
    ) -> Plan: ...
    def compile(self, *, compute: dict[Tensor, _Compute] | None = ...) -> CompiledGraph: ...

@final
class CompiledGraph:
    """Every step of a solved graph or instance, compiled once, run on numpy buffers."""

    @property
    def tensor_count(self) -> int: ...
    @property
    def steps(self) -> list[Tensor]: ...
    def shape(self, t: Tensor) -> tuple[int, ...]: ...
    def executable(self, t: Tensor) -> Executable: ...
    def run_step(
        self, t: Tensor, *operands: np.ndarray, out: np.ndarray | None = ...
    ) -> np.ndarray: ...
    def run(
        self,
        buffers: _Buffers,
        *,
        after: Callable[[Tensor, np.ndarray], object] | None = ...,
    ) -> _Buffers: ...

@final
class Plan:
    """The indexing plan of one step."""

    @property
    def result_shape(self) -> tuple[int, ...]: ...
    @property
    def operand_shapes(self) -> list[tuple[int, ...]]: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    def compile(self) -> Executable: ...
    @classmethod
    def from_json(cls, text: str) -> Plan: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Executable:
    """A compiled plan, run on numpy arrays."""

    @property
    def result_shape(self) -> tuple[int, ...]: ...
    @property
    def operand_shapes(self) -> list[tuple[int, ...]]: ...
    def run(self, *operands: np.ndarray, out: np.ndarray | None = ...) -> np.ndarray: ...
    def to_json(self) -> str: ...
    @classmethod
    def from_json(cls, text: str) -> Executable: ...

# --- errors -------------------------------------------------------------------------------

class ShapeError(ValueError):
    """Every error einrow reports; `str(err)` is the rendered text with carets."""

    code: str
    message: str
    source: str | None
    span: tuple[int, int] | None
    spans: list[tuple[int, int]]
    step: int | None
    tensors: list[str]
    statement: str | None
    chain: list[str]
    line: int | None

class SpecSyntaxError(ShapeError): ...
class ArityError(ShapeError): ...
class LabelError(ShapeError): ...
class UnknownNameError(ShapeError): ...
class MismatchError(ShapeError): ...
class RankError(ShapeError): ...
class CycleError(ShapeError): ...
class UnresolvedError(ShapeError): ...
class ElemsError(ShapeError): ...
class BoundsError(ShapeError): ...
class BadValueError(ShapeError): ...
class UnsupportedError(ShapeError): ...
class ResourceError(ShapeError): ...
class DTypeError(ShapeError, TypeError): ...
class UnknownStrategyError(BadValueError, KeyError): ...
class IncompletePathError(ArityError, RuntimeError): ...

"""Name tables shared by the analyses: what torch returns, which methods leave tensor-land."""

from __future__ import annotations

import ast

# Tensor attributes that are not tensors (metadata is static under torch.compile).
META_ATTRS = frozenset(
    {
        "shape",
        "dtype",
        "device",
        "ndim",
        "is_cuda",
        "is_sparse",
        "is_quantized",
        "is_meta",
        "requires_grad",
        "layout",
        "names",
        "is_leaf",
        "grad_fn",
        "itemsize",
        "nbytes",
        "is_nested",
        "is_mps",
        "is_cpu",
        "training",
        "__class__",
        "__name__",
        "config",
    }
)
# Tensor methods whose result is a Python value that is static under torch.compile.
META_METHODS = frozenset(
    {
        "size",
        "dim",
        "ndimension",
        "numel",
        "nelement",
        "stride",
        "is_contiguous",
        "element_size",
        "get_device",
        "is_floating_point",
        "is_complex",
        "is_signed",
        "storage_offset",
        "type",
        "is_pinned",
        "is_shared",
        "has_names",
        "__len__",
        "is_set_to",
        "is_inference",
        "untyped_storage",
        "keys",
        "values",
        "items",
    }
)
# Tensor methods that turn a tensor into Python data (each is its own rule).
# Public methods of ``torch.Tensor`` (torch 2.13, ``dir(torch.Tensor)``). A method call on a value
# inferred to be a tensor keeps the inference only for these names: ``cache.get_seq_length()`` or
# ``cfg.get("k")`` on a value that merely sits where a tensor could be is a Python object.
TENSOR_METHODS = frozenset(
    """
    H T abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv addcdiv_
    addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax
    angle any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2
    arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere as_strided as_strided_
    as_strided_scatter as_subclass asin asin_ asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_
    backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount bitwise_and bitwise_and_
    bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or bitwise_or_
    bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to byte
    cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char cholesky cholesky_inverse
    cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_ clone
    coalesce col_indices conj conj_physical conj_physical_ const_data_ptr contiguous copy_ copysign
    copysign_ corrcoef cos cos_ cosh cosh_ count_nonzero cov cpu cross crow_indices cuda cummax
    cummin cumprod cumprod_ cumsum cumsum_ data data_ptr deg2rad deg2rad_ dense_dim dequantize det
    detach detach_ device diag diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_
    dim dim_order dist div div_ divide divide_ dot double dsplit dtype eig element_size eq eq_ equal
    erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1 expm1_
    exponential_ fill_ fill_diagonal_ fix fix_ flatten flip fliplr flipud float float_power
    float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp
    gather gcd gcd_ ge ge_ geometric_ geqrf ger get_device grad grad_dtype grad_fn greater greater_
    greater_equal greater_equal_ gt gt_ half hardshrink hash_tensor heaviside heaviside_ histc
    histogram hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_ imag index index_add
    index_add_ index_copy index_copy_ index_fill index_fill_ index_put index_put_ index_reduce
    index_reduce_ index_select indices inner int int_repr inverse ipu is_coalesced is_complex
    is_conj is_contiguous is_cpu is_cuda is_distributed is_floating_point is_inference is_ipu
    is_leaf is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested is_nonzero is_pinned
    is_quantized is_same_size is_set_to is_shared is_signed is_sparse is_sparse_csr is_vulkan is_xla
    is_xpu isclose isfinite isinf isnan isneginf isposinf isreal istft item itemsize kron kthvalue
    layout lcm lcm_ ldexp ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_
    log log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp logaddexp2
    logcumsumexp logdet logical_and logical_and_ logical_not logical_not_ logical_or logical_or_
    logical_xor logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu lu_solve mH mT map2_ map_
    masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul matrix_exp
    matrix_power max maximum mean median min minimum mm mode module_load moveaxis movedim msort mtia
    mul mul_ multinomial multiply multiply_ mv mvlgamma mvlgamma_ name nan_to_num nan_to_num_
    nanmean nanmedian nanquantile nansum narrow narrow_copy nbytes ndim ndimension ne ne_ neg neg_
    negative negative_ nelement new new_empty new_empty_strided new_full new_ones new_tensor
    new_zeros nextafter nextafter_ nonzero nonzero_static norm normal_ not_equal not_equal_ numel
    numpy orgqr ormqr outer output_nr permute pin_memory pinverse polygamma polygamma_ positive pow
    pow_ prelu prod put put_ q_per_channel_axis q_per_channel_scales q_per_channel_zero_points
    q_scale q_zero_point qr qscheme quantile rad2deg rad2deg_ random_ ravel real reciprocal
    reciprocal_ record_stream register_hook register_post_accumulate_grad_hook reinforce relu relu_
    remainder remainder_ renorm renorm_ repeat repeat_interleave requires_grad requires_grad_
    reshape reshape_as resize resize_ resize_as resize_as_ resize_as_sparse_ resolve_conj
    resolve_neg retain_grad retains_grad roll rot90 round round_ row_indices rsqrt rsqrt_ scatter
    scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_ select select_scatter set_ sgn
    sgn_ shape share_memory_ short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh
    sinh_ size slice_inverse slice_scatter slogdet smm softmax solve sort sparse_dim sparse_mask
    sparse_resize_ sparse_resize_and_clear_ split split_with_sizes sqrt sqrt_ square square_ squeeze
    squeeze_ sspaddmm std stft storage storage_offset storage_type stride sub sub_ subtract
    subtract_ sum sum_to_size svd swapaxes swapaxes_ swapdims swapdims_ symeig t t_ take
    take_along_dim tan tan_ tanh tanh_ tensor_split tile to to_dense to_mkldnn to_padded_tensor
    to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr tolist topk
    trace transpose transpose_ triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc
    trunc_ type type_as unbind unflatten unfold uniform_ unique unique_consecutive unsafe_chunk
    unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage values var vdot view
    view_as volatile vsplit where xlogy xlogy_ xpu zero_
    """.split()
)

# methods a tensor has and no Python number, string or container has: a call of one on a
# parameter says the parameter is a tensor
TENSOR_ONLY_METHODS = (
    TENSOR_METHODS
    - frozenset(
        m
        for t in (int, float, complex, bool, str, bytes, list, tuple, dict, set, frozenset, range)
        for m in dir(t)
    )
    - frozenset(
        # methods modules, generators, devices and dtypes have too (``config.to(device)``)
        {
            "bfloat16",
            "cpu",
            "cuda",
            "double",
            "float",
            "half",
            "ipu",
            "mtia",
            "requires_grad_",
            "to",
            "type",
            "xpu",
            "device",
            "is_complex",
            "is_floating_point",
            "is_signed",
            "itemsize",
        }
    )
)
SCALAR_METHODS = frozenset({"item", "tolist", "numpy", "data_ptr", "__index__", "__int__"})
# torch functions and Tensor methods that read their tensors' data into a Python bool: torch
# 2.13 breaks at the call (GB0033 "Data dependent operator")
DATA_BOOL_READS = frozenset({"equal", "allclose", "is_nonzero"})

# torch.* callables whose result is not a tensor.
NON_TENSOR_TORCH = frozenset(
    {
        "torch.is_tensor",
        "torch.is_floating_point",
        "torch.is_complex",
        "torch.numel",
        "torch.is_grad_enabled",
        "torch.is_inference_mode_enabled",
        "torch.get_default_dtype",
        "torch.is_autocast_enabled",
        "torch.get_autocast_gpu_dtype",
        "torch.finfo",
        "torch.iinfo",
        "torch.device",
        "torch.dtype",
        "torch.Size",
        "torch.is_storage",
        "torch.are_deterministic_algorithms_enabled",
        "torch.get_num_threads",
        "torch.compile",
        "torch.no_grad",
        "torch.enable_grad",
        "torch.inference_mode",
        "torch.set_grad_enabled",
        "torch.autocast",
        "torch.typename",
        "torch.result_type",
        "torch.promote_types",
        "torch.can_cast",
        "torch.broadcast_shapes",
        "torch.sym_int",
        "torch.sym_float",
        "torch.sym_max",
        "torch.sym_min",
        "torch.get_rng_state",
        "torch.manual_seed",
        "torch.use_deterministic_algorithms",
        "torch.set_default_dtype",
        "torch.seed",
        "torch.initial_seed",
        "torch.get_default_device",
        "torch.get_float32_matmul_precision",
        "torch.get_autocast_dtype",
        "torch.get_autocast_cpu_dtype",
        "torch.is_autocast_cpu_enabled",
        "torch.is_anomaly_enabled",
        "torch.is_deterministic_algorithms_warn_only_enabled",
        "torch.get_device_module",
    }
)
NON_TENSOR_TORCH_PREFIXES = (
    "torch.cuda.",
    "torch.backends.",
    "torch.distributed.",
    "torch.jit.",
    "torch.compiler.",
    "torch._dynamo.",
    "torch.fx.",
    "torch.utils.",
    "torch.onnx.",
    "torch.version",
    "torch.nn.init.",
    "torch.testing.",
    "torch.overrides.",
    "torch.library.",
    "torch.nn.Module",
    "torch.nn.ModuleList",
    "torch.nn.ModuleDict",
    "torch.nn.Sequential",
    "torch.nn.ParameterList",
    "torch.nn.ParameterDict",
    "torch.mps.",
    "torch.xpu.",
    "torch.autograd.graph.",
    "torch.profiler.",
    "torch._C.",
    "torch.amp.",
    "torch.cpu.",
    "torch.random.",
    "torch.hub.",
    "torch.export.",
    "torch.ops.",
)
# torch.nn classes whose instances are modules (calling one returns a tensor).
TORCH_MODULE_PREFIXES = ("torch.nn.",)

# Names that read like flags or sizes: an unannotated forward parameter with such a name is not
# assumed to be a tensor.
FLAG_PREFIXES = (
    "use_",
    "return_",
    "output_",
    "is_",
    "do_",
    "num_",
    "n_",
    "has_",
    "enable_",
    "disable_",
    "with_",
    "skip_",
    "apply_",
    "need_",
    "should_",
    "compute_",
)
FLAG_NAMES = frozenset(
    {
        "training",
        "train",
        "inference",
        "dim",
        "axis",
        "mode",
        "reduction",
        "name",
        "verbose",
        "debug",
        "deterministic",
        "inplace",
        "causal",
        "is_causal",
        "normalize",
        "scale",
        "temperature",
        "eps",
        "p",
        "k",
        "top_k",
        "top_p",
        "step",
        "layer_idx",
        "idx",
        "index",
        "kwargs",
        "args",
        "config",
        "cache_position_offset",
        "flag",
        "strict",
        "seq_len",
        "max_len",
        "length",
        "size",
        "batch_size",
        "start",
        "end",
        "offset",
        "stride",
        "padding",
        "groups",
        "dropout",
        "head_dim",
        "num_heads",
        "window",
        "window_size",
        "cache",
        "past",
        "past_key_value",
        "past_key_values",
        "layer_past",
        "head_mask",
        "device",
        "dtype",
        "layout",
        "memory_format",
        "generator",
        "height",
        "width",
        "depth",
        "channels",
        "h",
        "w",
        "shape",
        "sizes",
        "seqlen",
        "seq_length",
        "max_length",
        "max_seq_len",
        "frames",
        "resolution",
    }
)
# Parameter-name endings that name sizes, dims, dtypes or devices (``hidden_size``, ``out_dim``,
# ``target_dtype``), never tensors of data.
FLAG_SUFFIXES = (
    "_size",
    "_len",
    "_length",
    "_dim",
    "_shape",
    "_dtype",
    "_device",
    "_name",
    "_type",
)

TENSORISH_ANNOTATION_WORDS = ("Tensor", "Parameter", "FloatTensor", "LongTensor", "BoolTensor")
# Names in a parameter annotation that never stand for a tensor (a parameter whose annotation
# names only these holds no tensor; any other name may be an alias of one).
NONTENSOR_ANNOTATIONS = frozenset(
    {
        "int",
        "float",
        "bool",
        "str",
        "bytes",
        "complex",
        "None",
        "NoneType",
        "object",
        "Any",
        "dict",
        "Dict",
        "list",
        "List",
        "tuple",
        "Tuple",
        "set",
        "Set",
        "frozenset",
        "FrozenSet",
        "Mapping",
        "MutableMapping",
        "Sequence",
        "Iterable",
        "Iterator",
        "Optional",
        "Union",
        "Literal",
        "callable",
        "Callable",
        "type",
        "Type",
        "Enum",
        "dtype",
        "device",
        "Size",
        "Generator",
        "Module",
        "ndarray",
    }
)

COMPILE_CALLS = frozenset({"torch.compile", "torch._dynamo.optimize"})
# Class decorators that replace a module's ``forward`` by default, so the class's own forward is
# not what torch.compile traces. transformers' ``use_experts_implementation`` dispatches MoE experts
# to ``config._experts_implementation`` ("grouped_mm" by default since transformers 5; the class's
# own loop over experts runs only with ``experts_implementation="eager"``).
FORWARD_REPLACING_CLASS_DECORATORS = frozenset({"use_experts_implementation"})

DISABLE_CALLS = frozenset(
    {
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch._disable_dynamo",
        "torch._dynamo.eval_frame.disable",
    }
)
# Registrations that make dynamo put a function into the graph as one opaque op (it does not trace
# into it): ``torch._dynamo.allow_in_graph(f)`` or ``@torch.compiler.allow_in_graph``.
ALLOW_IN_GRAPH_CALLS = frozenset(
    {
        "torch._dynamo.allow_in_graph",
        "torch.compiler.allow_in_graph",
        "torch._dynamo.decorators.allow_in_graph",
    }
)
# TorchScript markers: dynamo traces such functions normally (checked on torch 2.13: a branch on a
# buffer inside an ``@torch.jit.ignore`` method breaks the graph), so they do not stop tracing.
TORCHSCRIPT_MARKERS = frozenset({"torch.jit.ignore", "torch.jit.unused", "torch.jit.export"})
# Predicates that are True while torch.compile traces: code under `if not <pred>()` is skipped.
COMPILING_PREDICATES = frozenset(
    {
        "torch.compiler.is_compiling",
        "torch._dynamo.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch._utils.is_compiling",
        "torch._dynamo.external_utils.is_compiling",
        "is_torchdynamo_compiling",
        "is_compiling",
        "transformers.utils.is_torchdynamo_compiling",
        "transformers.utils.import_utils.is_torchdynamo_compiling",
        # transformers' `is_tracing(t)`: `is_torchdynamo_compiling() or is_jit_tracing() or ...`
        "transformers.utils.is_tracing",
        "transformers.utils.import_utils.is_tracing",
    }
)
# Predicates that are False while torch.compile traces (TorchScript's): code under `if <pred>()`
# is skipped, and `a if <pred>() else b` is `b`.
NOT_COMPILING_PREDICATES = frozenset({"torch.jit.is_tracing", "torch.jit.is_scripting"})
MODULE_BASES = frozenset(
    {"torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module", "Module"}
)
NON_MODULE_BASES = frozenset(
    {
        "object",
        "ABC",
        "abc.ABC",
        "typing.Protocol",
        "Protocol",
        "enum.Enum",
        "Enum",
        "Exception",
        "BaseException",
        "ValueError",
        "RuntimeError",
        "TypedDict",
        "typing.NamedTuple",
        "NamedTuple",
        "typing.Generic",
        "Generic",
        "dict",
        "list",
        "torch.autograd.Function",
        "torch.autograd.function.Function",
        "Function",
        "dataclasses.dataclass",
        "str",
        "int",
        "tuple",
        "unittest.TestCase",
    }
)


# Factories whose positional arguments are sizes (ints): a parameter passed there is no tensor.
SIZE_FACTORIES = frozenset(
    {
        "torch.zeros",
        "torch.ones",
        "torch.empty",
        "torch.rand",
        "torch.randn",
        "torch.randint",
        "torch.randperm",
        "torch.arange",
        "torch.eye",
    }
)

# Every attribute and method name of ``torch.Tensor`` (``dir(torch.Tensor)`` on torch 2.13, dunders
# left out): a parameter read as ``p.<name>`` for a name outside this set is not a tensor
# (``sde.noise_type``).
TENSOR_ATTRIBUTES = frozenset(
    """
    H T _addmm_activation _autocast_to_full_precision _autocast_to_reduced_precision
    _backward_hooks _base _cdata _clear_non_serializable_cached_data _coalesced_ _conj
    _conj_physical _dimI _dimV _dtensor__new__ _fix_weakref _grad _grad_fn
    _has_symbolic_sizes_strides _indices _is_all_true _is_any_true _is_view _is_zerotensor
    _lazy_clone _make_subclass _make_wrapper_subclass _neg_view _nested_tensor_size
    _nested_tensor_storage_offsets _nested_tensor_strides _nnz _philox_normal_ _philox_uniform_
    _post_accumulate_grad_hooks _python_dispatch _reduce_ex_internal _rev_view_func_unsafe
    _sparse_mask_projection _to_dense _to_sparse _to_sparse_bsc _to_sparse_bsr _to_sparse_csc
    _to_sparse_csr _typed_storage _use_count _values _version _view_func _view_func_unsafe abs
    abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv addcdiv_
    addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax
    angle any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan
    arctan2 arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere as_strided
    as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_ atan atan2 atan2_ atan_
    atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount bitwise_and
    bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or
    bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool
    broadcast_to byte cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char cholesky
    cholesky_inverse cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_
    clip clip_ clone coalesce col_indices conj conj_physical conj_physical_ const_data_ptr
    contiguous copy_ copysign copysign_ corrcoef cos cos_ cosh cosh_ count_nonzero cov cpu cross
    crow_indices cuda cummax cummin cumprod cumprod_ cumsum cumsum_ data data_ptr deg2rad
    deg2rad_ dense_dim dequantize det detach detach_ device diag diag_embed diagflat diagonal
    diagonal_scatter diff digamma digamma_ dim dim_order dist div div_ divide divide_ dot double
    dsplit dtype eig element_size eq eq_ equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_
    exp_ expand expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flatten flip
    fliplr flipud float float_power float_power_ floor floor_ floor_divide floor_divide_ fmax
    fmin fmod fmod_ frac frac_ frexp gather gcd gcd_ ge ge_ geometric_ geqrf ger get_device grad
    grad_dtype grad_fn greater greater_ greater_equal greater_equal_ gt gt_ half hardshrink
    hash_tensor heaviside heaviside_ histc histogram hsplit hypot hypot_ i0 i0_ igamma igamma_
    igammac igammac_ imag index index_add index_add_ index_copy index_copy_ index_fill
    index_fill_ index_put index_put_ index_reduce index_reduce_ index_select indices inner int
    int_repr inverse ipu is_coalesced is_complex is_conj is_contiguous is_cpu is_cuda
    is_distributed is_floating_point is_inference is_ipu is_leaf is_maia is_meta is_mkldnn
    is_mps is_mtia is_neg is_nested is_nonzero is_pinned is_quantized is_same_size is_set_to
    is_shared is_signed is_sparse is_sparse_csr is_vulkan is_xla is_xpu isclose isfinite isinf
    isnan isneginf isposinf isreal istft item itemsize kron kthvalue layout lcm lcm_ ldexp
    ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_
    log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp
    logdet logical_and logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor
    logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu lu_solve mH mT map2_ map_
    masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul matrix_exp
    matrix_power max maximum mean median min minimum mm mode module_load moveaxis movedim msort
    mtia mul mul_ multinomial multiply multiply_ mv mvlgamma mvlgamma_ name nan_to_num
    nan_to_num_ nanmean nanmedian nanquantile nansum narrow narrow_copy nbytes ndim ndimension
    ne ne_ neg neg_ negative negative_ nelement new new_empty new_empty_strided new_full
    new_ones new_tensor new_zeros nextafter nextafter_ nonzero nonzero_static norm normal_
    not_equal not_equal_ numel numpy orgqr ormqr outer output_nr permute pin_memory pinverse
    polygamma polygamma_ positive pow pow_ prelu prod put put_ q_per_channel_axis
    q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qr qscheme quantile
    rad2deg rad2deg_ random_ ravel real reciprocal reciprocal_ record_stream register_hook
    register_post_accumulate_grad_hook reinforce relu relu_ remainder remainder_ renorm renorm_
    repeat repeat_interleave requires_grad requires_grad_ reshape reshape_as resize resize_
    resize_as resize_as_ resize_as_sparse_ resolve_conj resolve_neg retain_grad retains_grad
    roll rot90 round round_ row_indices rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_
    scatter_reduce scatter_reduce_ select select_scatter set_ sgn sgn_ shape share_memory_ short
    sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_ size slice_inverse
    slice_scatter slogdet smm softmax solve sort sparse_dim sparse_mask sparse_resize_
    sparse_resize_and_clear_ split split_with_sizes sqrt sqrt_ square square_ squeeze squeeze_
    sspaddmm std stft storage storage_offset storage_type stride sub sub_ subtract subtract_ sum
    sum_to_size svd swapaxes swapaxes_ swapdims swapdims_ symeig t t_ take take_along_dim tan
    tan_ tanh tanh_ tensor_split tile to to_dense to_mkldnn to_padded_tensor to_sparse
    to_sparse_bsc to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr tolist topk trace
    transpose transpose_ triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc
    trunc_ type type_as unbind unflatten unfold uniform_ unique unique_consecutive unsafe_chunk
    unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage values var vdot
    view view_as volatile vsplit where xlogy xlogy_ xpu zero_
    """.split()
)


def ast_dotted(node: ast.expr) -> str | None:
    """``a.b.c`` of a name or an attribute chain of Python's ``ast``; None for anything else
    (the light read, phase 2's dispatch and the loop-shadow model read their trees with it)."""
    parts: list[str] = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is ast.Name:
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None

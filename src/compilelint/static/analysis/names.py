"""Name tables shared by the analyses: what torch returns, which methods leave tensor-land."""

from __future__ import annotations

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
SCALAR_METHODS = frozenset({"item", "tolist", "numpy", "data_ptr", "__index__", "__int__"})

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
    }
)

TENSORISH_ANNOTATION_WORDS = ("Tensor", "Parameter", "FloatTensor", "LongTensor", "BoolTensor")
NONTENSOR_ANNOTATIONS = frozenset(
    {
        "int",
        "float",
        "bool",
        "str",
        "bytes",
        "None",
        "dict",
        "Dict",
        "callable",
        "Callable",
        "type",
        "Type",
        "Enum",
    }
)

COMPILE_CALLS = frozenset({"torch.compile", "torch._dynamo.optimize"})
DISABLE_CALLS = frozenset(
    {
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch._disable_dynamo",
        "torch._dynamo.eval_frame.disable",
        "torch.jit.ignore",
        "torch.jit.unused",
    }
)
# Predicates that are True while torch.compile traces: code under `if not <pred>()` is skipped.
COMPILING_PREDICATES = frozenset(
    {
        "torch.compiler.is_compiling",
        "torch._dynamo.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch._utils.is_compiling",
        "torch._dynamo.external_utils.is_compiling",
        "torch.jit.is_tracing",
        "torch.jit.is_scripting",
        "is_torchdynamo_compiling",
        "is_compiling",
        "transformers.utils.is_torchdynamo_compiling",
        "transformers.utils.import_utils.is_torchdynamo_compiling",
    }
)
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

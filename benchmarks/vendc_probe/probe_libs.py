"""fix27a: torch._dynamo.explain over entry points of libraries not vendored in round 22 (entmax,
sparsemax, kmeans-pytorch, torch-kmeans, pytorch-msssim, torch-dct, product-key-memory, soft-moe,
st-moe, CoLT5, MEGABYTE, pytorch-metric-learning, linear_operator, torchsde, torchode, torchcde,
normflows, transformers heads/losses/routers); prints each one's graph breaks and where in the
library they are. `python probe_libs.py [NAME ...]`."""
import sys, traceback, warnings
warnings.filterwarnings("ignore")
import torch
import torch._dynamo as dyn
from torch import nn
C = {}
def cand(f): C[f.__name__] = f; return f

@cand
def entmax15():
    from entmax import entmax15
    return entmax15, (torch.randn(3, 7, requires_grad=True),)
@cand
def entmax_bisect():
    from entmax import entmax_bisect
    return entmax_bisect, (torch.randn(3, 7, requires_grad=True), 1.3)
@cand
def entmax_alpha():
    from entmax import EntmaxAlpha
    return EntmaxAlpha(7), (torch.randn(3, 7),)
@cand
def entmax_loss():
    from entmax import Entmax15Loss
    return Entmax15Loss(ignore_index=-100), (torch.randn(4, 7), torch.tensor([1, 2, -100, 3]))
@cand
def sparsemax_mod():
    from sparsemax import Sparsemax
    return Sparsemax(dim=-1), (torch.randn(3, 7),)
@cand
def kmeans_predict():
    from kmeans_pytorch import kmeans_predict
    return (lambda x, c: kmeans_predict(x, c, device=torch.device("cpu"), tqdm_flag=False)), (torch.randn(20, 3), torch.randn(4, 3))
@cand
def kmeans_fit():
    from kmeans_pytorch import kmeans
    return (lambda x: kmeans(x, 3, device=torch.device("cpu"), tqdm_flag=False, iter_limit=3)), (torch.randn(20, 3),)
@cand
def torch_kmeans():
    from torch_kmeans import KMeans
    return KMeans(n_clusters=3, verbose=False, max_iter=5), (torch.randn(2, 20, 3),)
@cand
def torch_softkmeans():
    from torch_kmeans import SoftKMeans
    return SoftKMeans(n_clusters=3, verbose=False, max_iter=5), (torch.randn(2, 20, 3),)
@cand
def msssim():
    from pytorch_msssim import ms_ssim
    return (lambda a, b: ms_ssim(a, b, data_range=1.0, win_size=3)), (torch.rand(1, 3, 48, 48), torch.rand(1, 3, 48, 48))
@cand
def ssim():
    from pytorch_msssim import SSIM
    return SSIM(data_range=1.0, channel=3), (torch.rand(1, 3, 32, 32), torch.rand(1, 3, 32, 32))
@cand
def dct2():
    import torch_dct
    return (lambda x: torch_dct.idct_2d(torch_dct.dct_2d(x, norm="ortho"), norm="ortho")), (torch.randn(2, 8, 8),)
@cand
def pkm():
    from product_key_memory import PKM
    return PKM(dim=16, heads=2, num_keys=8, topk=4, dim_head=8), (torch.randn(2, 5, 16),)
@cand
def softmoe():
    from soft_moe_pytorch import SoftMoE
    return SoftMoE(dim=16, seq_len=8, num_experts=4), (torch.randn(2, 8, 16),)
@cand
def softmoe_dyn():
    from soft_moe_pytorch import DynamicSlotsSoftMoE
    return DynamicSlotsSoftMoE(dim=16, num_experts=4), (torch.randn(2, 9, 16),)
@cand
def stmoe():
    from st_moe_pytorch import MoE
    m = MoE(dim=16, num_experts=4, gating_top_n=2)
    return m, (torch.randn(2, 8, 16),)
@cand
def stmoe_eval():
    from st_moe_pytorch import MoE
    m = MoE(dim=16, num_experts=4, gating_top_n=2).eval()
    return m, (torch.randn(2, 8, 16),)
@cand
def colt5_router():
    from colt5_attention import CoordinateDescentRouter
    return CoordinateDescentRouter(dim=16, n_iters=5), (torch.randn(2, 16, 16), 4)
@cand
def colt5_topk():
    from colt5_attention import topk
    return (lambda x: topk(x, 3, fused=False).values), (torch.randn(2, 16, requires_grad=True),)
@cand
def colt5_block():
    from colt5_attention import ConditionalRoutedFeedForward
    return ConditionalRoutedFeedForward(dim=16, num_heavy_tokens=4), (torch.randn(2, 16, 16),)
@cand
def megabyte():
    from MEGABYTE_pytorch import MEGABYTE
    m = MEGABYTE(num_tokens=32, dim=(16, 8), depth=(1, 1), max_seq_len=(4, 4), flash_attn=False)
    return m, (torch.randint(0, 32, (2, 16)),)
@cand
def pml_triplet_miner():
    from pytorch_metric_learning import miners
    return miners.TripletMarginMiner(margin=0.2, type_of_triplets="semihard"), (torch.randn(12, 8), torch.randint(0, 3, (12,)))
@cand
def pml_ms_miner():
    from pytorch_metric_learning import miners
    return miners.MultiSimilarityMiner(epsilon=0.1), (torch.randn(12, 8), torch.randint(0, 3, (12,)))
@cand
def pml_triplet_loss():
    from pytorch_metric_learning import losses
    return losses.TripletMarginLoss(margin=0.1), (torch.randn(12, 8, requires_grad=True), torch.randint(0, 3, (12,)))
@cand
def pml_ntxent():
    from pytorch_metric_learning import losses
    return losses.NTXentLoss(), (torch.randn(12, 8, requires_grad=True), torch.randint(0, 3, (12,)))
@cand
def pml_arcface():
    from pytorch_metric_learning import losses
    return losses.ArcFaceLoss(num_classes=3, embedding_size=8), (torch.randn(12, 8, requires_grad=True), torch.randint(0, 3, (12,)))
@cand
def pml_contrastive():
    from pytorch_metric_learning import losses
    return losses.ContrastiveLoss(), (torch.randn(12, 8, requires_grad=True), torch.randint(0, 3, (12,)))
@cand
def pml_supcon():
    from pytorch_metric_learning import losses
    return losses.SupConLoss(), (torch.randn(12, 8, requires_grad=True), torch.randint(0, 3, (12,)))
@cand
def pml_batchhard():
    from pytorch_metric_learning import miners
    return miners.BatchHardMiner(), (torch.randn(12, 8), torch.randint(0, 3, (12,)))
@cand
def lo_psd_safe_chol():
    from linear_operator.utils.cholesky import psd_safe_cholesky
    a = torch.randn(5, 5); a = a @ a.T + 5 * torch.eye(5)
    return psd_safe_cholesky, (a,)
@cand
def lo_solve():
    import linear_operator
    from linear_operator.operators import DenseLinearOperator
    a = torch.randn(5, 5); a = a @ a.T + 5 * torch.eye(5)
    return (lambda a, b: DenseLinearOperator(a).solve(b)), (a, torch.randn(5, 2))
@cand
def lo_lanczos():
    from linear_operator.utils.lanczos import lanczos_tridiag
    a = torch.randn(6, 6); a = a @ a.T + 6 * torch.eye(6)
    return (lambda a: lanczos_tridiag(a.matmul, 4, dtype=a.dtype, device=a.device, matrix_shape=a.shape)[1]), (a,)
@cand
def lo_cg():
    from linear_operator.utils.linear_cg import linear_cg
    a = torch.randn(6, 6); a = a @ a.T + 6 * torch.eye(6)
    return (lambda a, b: linear_cg(a.matmul, b, max_iter=5)), (a, torch.randn(6, 1))
@cand
def lo_pivchol():
    from linear_operator.functions import pivoted_cholesky
    a = torch.randn(6, 6); a = a @ a.T + 6 * torch.eye(6)
    return (lambda a: pivoted_cholesky(a, 3)), (a,)
@cand
def sde_int():
    import torchsde
    class S(nn.Module):
        noise_type = "diagonal"; sde_type = "ito"
        def __init__(s): super().__init__(); s.l = nn.Linear(3, 3)
        def f(s, t, y): return s.l(y)
        def g(s, t, y): return torch.sigmoid(y)
    sde = S()
    return (lambda y0: torchsde.sdeint(sde, y0, torch.tensor([0.0, 0.1]), dt=0.05)), (torch.randn(2, 3),)
@cand
def sde_bm():
    import torchsde
    return (lambda x: torchsde.BrownianInterval(t0=0.0, t1=1.0, size=x.shape)(0.0, 0.5) + x), (torch.randn(2, 3),)
@cand
def ode_solve():
    import torchode as to
    term = to.ODETerm(lambda t, y: -y)
    step = to.Dopri5(term=term)
    ctrl = to.IntegralController(atol=1e-6, rtol=1e-3, term=term)
    solver = to.AutoDiffAdjoint(step, ctrl)
    return (lambda y0: solver.solve(to.InitialValueProblem(y0=y0, t_eval=torch.tensor([[0.0, 0.5], [0.0, 0.5]]))).ys), (torch.randn(2, 3),)
@cand
def cde_spline():
    import torchcde
    x = torch.randn(2, 6, 3)
    co = torchcde.hermite_cubic_coefficients_with_backward_differences(x)
    return (lambda c, t: torchcde.CubicSpline(c).evaluate(t)), (co, torch.tensor(2.5))
@cand
def cde_linear_eval():
    import torchcde
    x = torch.randn(2, 6, 3)
    co = torchcde.linear_interpolation_coeffs(x)
    return (lambda c, t: torchcde.LinearInterpolation(c).evaluate(t)), (co, torch.tensor(2.5))
@cand
def cde_int():
    import torchcde
    x = torch.randn(2, 6, 3)
    co = torchcde.linear_interpolation_coeffs(x)
    f = nn.Sequential(nn.Linear(4, 12), nn.Tanh())
    class F(nn.Module):
        def __init__(s): super().__init__(); s.l = nn.Linear(4, 4 * 3)
        def forward(s, t, z): return s.l(z).view(z.size(0), 4, 3)
    func = F()
    return (lambda c, z0: torchcde.cdeint(X=torchcde.LinearInterpolation(c), func=func, z0=z0, t=torchcde.LinearInterpolation(c).interval, method="rk4", options=dict(step_size=1.0))), (co, torch.randn(2, 4))
@cand
def nf_realnvp():
    import normflows as nf
    flows = [nf.flows.AffineCouplingBlock(nf.nets.MLP([1, 8, 2], init_zeros=True)), nf.flows.Permute(2, mode="swap")]
    m = nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows)
    return m.log_prob, (torch.randn(5, 2),)
@cand
def nf_actnorm():
    import normflows as nf
    return nf.flows.ActNorm((4,)), (torch.randn(5, 4),)
@cand
def nf_nsf():
    import normflows as nf
    return nf.flows.AutoregressiveRationalQuadraticSpline(2, 1, 8), (torch.randn(5, 2),)
@cand
def nf_residual():
    import normflows as nf
    net = nf.nets.LipschitzMLP([2, 8, 2], init_zeros=True)
    return nf.flows.Residual(net, reduce_memory=True), (torch.randn(5, 2),)
@cand
def nf_glow_sample():
    import normflows as nf
    m = nf.NormalizingFlow(nf.distributions.DiagGaussian(2), [nf.flows.Planar((2,))])
    return (lambda n: m.sample(n)[0]), (4,)
@cand
def nf_resampled():
    import normflows as nf
    d = nf.distributions.ResampledGaussian(2, nf.nets.MLP([2, 8, 1], output_fn="sigmoid"), 10, 0.1)
    return d.log_prob, (torch.randn(5, 2),)
@cand
def nf_gmm():
    import normflows as nf
    return nf.distributions.GaussianMixture(3, 2).log_prob, (torch.randn(5, 2),)
# transformers: heads, losses, routers, audio features
@cand
def tf_qwen2moe():
    from transformers.models.qwen2_moe.modeling_qwen2_moe import Qwen2MoeSparseMoeBlock
    from transformers import Qwen2MoeConfig
    cfg = Qwen2MoeConfig(hidden_size=16, moe_intermediate_size=8, shared_expert_intermediate_size=8, num_experts=4, num_experts_per_tok=2)
    return Qwen2MoeSparseMoeBlock(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_dsv3():
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3MoE
    from transformers import DeepseekV3Config
    cfg = DeepseekV3Config(hidden_size=16, moe_intermediate_size=8, n_routed_experts=4, num_experts_per_tok=2, n_group=2, topk_group=1, n_shared_experts=1, intermediate_size=16)
    return DeepseekV3MoE(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_nllb_router():
    from transformers.models.nllb_moe.modeling_nllb_moe import NllbMoeTop2Router
    from transformers import NllbMoeConfig
    cfg = NllbMoeConfig(d_model=16, num_experts=4, expert_capacity=4)
    return NllbMoeTop2Router(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_whisper_fbank():
    from transformers import WhisperFeatureExtractor
    fe = WhisperFeatureExtractor(feature_size=16, n_fft=64, hop_length=16, chunk_length=1, sampling_rate=1600)
    return (lambda w: fe._torch_extract_fbank_features(w.numpy(), "cpu")), (torch.randn(1600),)
@cand
def tf_focal():
    from transformers.loss.loss_rt_detr import RTDetrLoss
    raise RuntimeError("skip")
@cand
def tf_wav2vec_gumbel():
    from transformers.models.wav2vec2.modeling_wav2vec2 import Wav2Vec2GumbelVectorQuantizer
    from transformers import Wav2Vec2Config
    cfg = Wav2Vec2Config(conv_dim=(16,), codevector_dim=8, num_codevector_groups=2, num_codevectors_per_group=4)
    return Wav2Vec2GumbelVectorQuantizer(cfg).eval(), (torch.randn(2, 5, 16), torch.ones(2, 5, dtype=torch.bool))
@cand
def tf_mask2former_pt():
    from transformers.models.mask2former.modeling_mask2former import sample_point
    return sample_point, (torch.randn(2, 1, 8, 8), torch.rand(2, 5, 2))
@cand
def tf_seg_dice():
    from transformers.models.mask2former.modeling_mask2former import dice_loss
    return (lambda a, b: dice_loss(a, b, 2)), (torch.randn(2, 10), torch.rand(2, 10))
@cand
def tf_loss_ce():
    from transformers.loss.loss_utils import ForCausalLMLoss
    return (lambda l, y: ForCausalLMLoss(l, y, 10, num_items_in_batch=torch.tensor(5))), (torch.randn(2, 4, 10), torch.randint(0, 10, (2, 4)))
@cand
def tf_seqcls_loss():
    from transformers.loss.loss_utils import ForSequenceClassificationLoss
    from types import SimpleNamespace
    cfg = SimpleNamespace(num_labels=3, problem_type=None)
    return (lambda l, y: ForSequenceClassificationLoss(y, l, cfg)), (torch.randn(4, 3), torch.randint(0, 3, (4,)))
@cand
def tf_grounding_loss():
    from transformers.loss.loss_grounding_dino import sigmoid_focal_loss
    return (lambda a, b: sigmoid_focal_loss(a, b, 2)), (torch.randn(2, 5, 3), torch.rand(2, 5, 3))
@cand
def tf_relpos_t5():
    from transformers.models.t5.modeling_t5 import T5Attention
    return (lambda r: T5Attention._relative_position_bucket(r)), (torch.arange(-8, 8),)
@cand
def tf_clap_fusion():
    from transformers.models.clap.modeling_clap import window_partition
    return (lambda x: window_partition(x, 4)), (torch.randn(1, 8, 8, 3),)
@cand
def tf_sam_points():
    from transformers.models.sam.modeling_sam import SamPositionalEmbedding
    from transformers import SamVisionConfig
    raise RuntimeError("skip")
@cand
def tf_bigbird_rand():
    from transformers.models.big_bird.modeling_big_bird import BigBirdBlockSparseAttention
    raise RuntimeError("skip")
@cand
def tf_jamba_moe():
    from transformers.models.jamba.modeling_jamba import JambaSparseMoeBlock
    from transformers import JambaConfig
    cfg = JambaConfig(hidden_size=16, intermediate_size=8, num_experts=4, num_experts_per_tok=2)
    return JambaSparseMoeBlock(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_granitemoe():
    from transformers.models.granitemoe.modeling_granitemoe import GraniteMoeMoE
    from transformers import GraniteMoeConfig
    cfg = GraniteMoeConfig(hidden_size=16, intermediate_size=8, num_local_experts=4, num_experts_per_tok=2)
    return GraniteMoeMoE(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_dbrx():
    from transformers.models.dbrx.modeling_dbrx import DbrxFFN
    from transformers import DbrxConfig
    cfg = DbrxConfig(d_model=16, ffn_config={"ffn_hidden_size": 8, "moe_num_experts": 4, "moe_top_k": 2})
    return DbrxFFN(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_olmoe():
    from transformers.models.olmoe.modeling_olmoe import OlmoeSparseMoeBlock
    from transformers import OlmoeConfig
    cfg = OlmoeConfig(hidden_size=16, intermediate_size=8, num_experts=4, num_experts_per_tok=2)
    return OlmoeSparseMoeBlock(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_encodec_q():
    from transformers.models.encodec.modeling_encodec import EncodecResidualVectorQuantizer
    from transformers import EncodecConfig
    cfg = EncodecConfig(codebook_size=8, codebook_dim=4, hidden_size=4, target_bandwidths=[1.5, 3.0])
    q = EncodecResidualVectorQuantizer(cfg)
    return (lambda x: q.encode(x, 3.0)), (torch.randn(2, 4, 6),)
@cand
def df_dpm_step():
    from diffusers import DPMSolverMultistepScheduler
    s = DPMSolverMultistepScheduler(); s.set_timesteps(10)
    t = s.timesteps[0]
    return (lambda o, x: s.step(o, t, x).prev_sample), (torch.randn(1, 4, 8, 8), torch.randn(1, 4, 8, 8))
@cand
def df_unipc_step():
    from diffusers import UniPCMultistepScheduler
    s = UniPCMultistepScheduler(); s.set_timesteps(10)
    t = s.timesteps[0]
    return (lambda o, x: s.step(o, t, x).prev_sample), (torch.randn(1, 4, 8, 8), torch.randn(1, 4, 8, 8))
@cand
def df_rescale_cfg():
    from diffusers.pipelines.stable_diffusion_xl.pipeline_stable_diffusion_xl import rescale_noise_cfg
    return rescale_noise_cfg, (torch.randn(1, 4, 8, 8), torch.randn(1, 4, 8, 8))
@cand
def df_retrieve_ts():
    from diffusers.pipelines.flux.pipeline_flux import calculate_shift
    return (lambda x: x * calculate_shift(x.shape[1])), (torch.randn(1, 300),)
@cand
def df_heun_step():
    from diffusers import HeunDiscreteScheduler
    s = HeunDiscreteScheduler(); s.set_timesteps(10)
    t = s.timesteps[0]
    return (lambda o, x: s.step(o, t, x).prev_sample), (torch.randn(1, 4, 8, 8), torch.randn(1, 4, 8, 8))
@cand
def df_fm_euler():
    from diffusers import FlowMatchEulerDiscreteScheduler
    s = FlowMatchEulerDiscreteScheduler(); s.set_timesteps(10)
    t = s.timesteps[0]
    return (lambda o, x: s.step(o, t, x).prev_sample), (torch.randn(1, 4, 8, 8), torch.randn(1, 4, 8, 8))

def run(name):
    try:
        f, args = C[name]()
    except Exception as e:
        print(f"## {name}: SETUP {type(e).__name__}: {str(e)[:120]}"); return
    torch._dynamo.reset()
    try:
        ex = dyn.explain(f)(*args)
    except Exception as e:
        print(f"## {name}: EXPLAIN {type(e).__name__}: {str(e)[:200]}"); return
    print(f"## {name}: graphs={ex.graph_count} breaks={ex.graph_break_count}")
    for br in ex.break_reasons[:8]:
        r = str(br.reason).splitlines()[0][:140]
        locs = [f"{fs.filename.split('site-packages/')[-1]}:{fs.lineno} {fs.name}" for fs in br.user_stack[-2:]]
        print("   ", r, "|", " <- ".join(reversed(locs)))

if __name__ == "__main__":
    for n in (sys.argv[1:] or list(C)):
        run(n); sys.stdout.flush()

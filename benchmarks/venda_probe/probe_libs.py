"""fix26a: torch._dynamo.explain over library entry points (transformers, diffusers, kornia, torchmetrics) with small inputs; prints each one's graph breaks and where in the library they are. `python probe_libs.py [--set 1|2|3] [NAME ...]`: set 1 (default) the first probe, set 2 transformers post-processing and diffusers schedulers, set 3 transformers masks and kornia (the first four breaks each); sets 2 and 3 were probe_libs2.py and probe_libs3.py."""
import torch, traceback, sys, warnings
warnings.filterwarnings("ignore")
import torch._dynamo as dyn
SETS = {1: {}, 2: {}, 3: {}}
def in_set(n):
    def cand(f): SETS[n][f.__name__] = f; return f
    return cand
cand, cand2, cand3 = in_set(1), in_set(2), in_set(3)

@cand
def tf_whisper_ts():
    from transformers.generation.logits_process import WhisperTimeStampLogitsProcessor
    from types import SimpleNamespace
    gc = SimpleNamespace(eos_token_id=50, no_timestamps_token_id=60, max_initial_timestamp_index=5, is_multilingual=False, task_to_id=None, lang_to_id=None)
    p = WhisperTimeStampLogitsProcessor(gc, begin_index=2)
    ids = torch.randint(0, 50, (2, 4)); sc = torch.randn(2, 100)
    return p, (ids, sc)
@cand
def tf_seqbias():
    from transformers.generation.logits_process import SequenceBiasLogitsProcessor
    p = SequenceBiasLogitsProcessor({(3,): 1.0, (4, 5): -2.0})
    return p, (torch.randint(0, 10, (2, 4)), torch.randn(2, 10))
@cand
def tf_nobad():
    from transformers.generation.logits_process import NoBadWordsLogitsProcessor
    p = NoBadWordsLogitsProcessor([[3], [4, 5]], eos_token_id=9)
    return p, (torch.randint(0, 10, (2, 4)), torch.randn(2, 10))
@cand
def tf_eta():
    from transformers.generation.logits_process import EtaLogitsWarper
    return EtaLogitsWarper(0.1), (torch.randint(0, 10, (2, 4)), torch.randn(2, 10))
@cand
def tf_minp():
    from transformers.generation.logits_process import MinPLogitsWarper
    return MinPLogitsWarper(0.1), (torch.randint(0, 10, (2, 4)), torch.randn(2, 10))
@cand
def tf_suppress_begin():
    from transformers.generation.logits_process import SuppressTokensAtBeginLogitsProcessor
    return SuppressTokensAtBeginLogitsProcessor([1, 2], 3), (torch.randint(0, 10, (2, 4)), torch.randn(2, 10))
@cand
def tf_expdecay():
    from transformers.generation.logits_process import ExponentialDecayLengthPenalty
    return ExponentialDecayLengthPenalty((2, 1.5), 9, 2), (torch.randint(0, 10, (2, 4)), torch.randn(2, 10))
@cand
def tf_giou():
    from transformers.loss.loss_for_object_detection import generalized_box_iou
    b = torch.rand(3, 4); b[:, 2:] += 1
    return generalized_box_iou, (b, b.clone())
@cand
def tf_hungarian():
    from transformers.loss.loss_for_object_detection import HungarianMatcher
    m = HungarianMatcher()
    out = {"logits": torch.randn(2, 5, 4), "pred_boxes": torch.rand(2, 5, 4)}
    t = [{"class_labels": torch.tensor([1, 2]), "boxes": torch.rand(2, 4)}, {"class_labels": torch.tensor([0]), "boxes": torch.rand(1, 4)}]
    return m, (out, t)
@cand
def tf_mixtral_moe():
    from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock
    from transformers import MixtralConfig
    cfg = MixtralConfig(hidden_size=16, intermediate_size=32, num_local_experts=4, num_experts_per_tok=2)
    return MixtralSparseMoeBlock(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_switch_router():
    from transformers.models.switch_transformers.modeling_switch_transformers import SwitchTransformersSparseMLP
    from transformers import SwitchTransformersConfig
    cfg = SwitchTransformersConfig(d_model=16, d_ff=32, num_experts=4, expert_capacity=4)
    return SwitchTransformersSparseMLP(cfg), (torch.randn(2, 5, 16),)
@cand
def tf_lbloss():
    from transformers.models.mixtral.modeling_mixtral import load_balancing_loss_func
    return (lambda g, m: load_balancing_loss_func(g, 4, 2, m)), ((torch.randn(10, 4), torch.randn(10, 4)), torch.ones(2, 5, dtype=torch.long))
@cand
def df_euler():
    from diffusers import EulerDiscreteScheduler
    s = EulerDiscreteScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_ddpm():
    from diffusers import DDPMScheduler
    s = DDPMScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_ddim():
    from diffusers import DDIMScheduler
    s = DDIMScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_dpm():
    from diffusers import DPMSolverMultistepScheduler
    s = DPMSolverMultistepScheduler(thresholding=True); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_lms():
    from diffusers import LMSDiscreteScheduler
    s = LMSDiscreteScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_ddpm_addnoise():
    from diffusers import DDPMScheduler
    s = DDPMScheduler()
    return (lambda x, n, t: s.add_noise(x, n, t)), (torch.randn(2, 4, 8, 8), torch.randn(2, 4, 8, 8), torch.tensor([10, 500]))
@cand
def df_euler_addnoise():
    from diffusers import EulerDiscreteScheduler
    s = EulerDiscreteScheduler(); s.set_timesteps(10)
    return (lambda x, n, t: s.add_noise(x, n, t)), (torch.randn(2, 4, 8, 8), torch.randn(2, 4, 8, 8), s.timesteps[[1, 3]])
@cand
def df_rescale():
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import rescale_noise_cfg
    return (lambda a, b: rescale_noise_cfg(a, b, 0.7)), (torch.randn(2, 4, 8, 8), torch.randn(2, 4, 8, 8))
@cand
def df_retrieve_latents():
    from diffusers.models.autoencoders.vae import DiagonalGaussianDistribution
    return (lambda p: DiagonalGaussianDistribution(p).kl()), (torch.randn(2, 8, 4, 4),)
@cand
def km_match_snn():
    import kornia.feature as KF
    return (lambda a, b: KF.match_snn(a, b, 0.9)), (torch.randn(6, 8), torch.randn(7, 8))
@cand
def km_match_smnn():
    import kornia.feature as KF
    return (lambda a, b: KF.match_smnn(a, b, 0.95)), (torch.randn(6, 8), torch.randn(7, 8))
@cand
def km_rot2quat():
    import kornia.geometry.conversions as C
    return C.rotation_matrix_to_quaternion, (torch.eye(3).expand(2, 3, 3).contiguous(),)
@cand
def km_equalize():
    import kornia.enhance as E
    return E.equalize, (torch.rand(2, 3, 8, 8),)
@cand
def km_blur():
    import kornia.filters as F
    return (lambda x, s: F.gaussian_blur2d(x, (5, 5), s)), (torch.rand(2, 3, 8, 8), torch.tensor([[1.0, 1.5], [0.5, 1.0]]))
@cand
def km_canny():
    import kornia.filters as F
    return F.canny, (torch.rand(2, 3, 16, 16),)
@cand
def km_cc():
    import kornia.contrib as K
    return (lambda x: K.connected_components(x, 10)), ((torch.rand(1, 1, 8, 8) > 0.5).float(),)
@cand
def km_aug_flip():
    import kornia.augmentation as A
    return A.RandomHorizontalFlip(p=0.5), (torch.rand(2, 3, 8, 8),)
@cand
def km_aug_affine():
    import kornia.augmentation as A
    return A.RandomAffine(degrees=10, p=0.5), (torch.rand(2, 3, 8, 8),)
@cand
def km_aug_jitter():
    import kornia.augmentation as A
    return A.ColorJitter(0.1, 0.1, 0.1, 0.1, p=0.5), (torch.rand(2, 3, 8, 8),)
@cand
def km_nms():
    import kornia.geometry.subpix as S
    return (lambda x: S.nms2d(x, (3, 3))), (torch.rand(1, 1, 8, 8),)
@cand
def km_hist():
    import kornia.enhance as E
    return (lambda x: E.histogram(x, torch.linspace(0, 1, 8), torch.tensor(0.9))), (torch.rand(2, 16),)
@cand
def km_persp():
    import kornia.geometry.transform as T
    return T.get_perspective_transform, (torch.rand(1, 4, 2), torch.rand(1, 4, 2))
@cand
def km_find_homo():
    import kornia.geometry.homography as H
    return H.find_homography_dlt, (torch.rand(1, 6, 2), torch.rand(1, 6, 2))
@cand
def km_laf():
    import kornia.feature as KF
    return (lambda x: KF.laf_from_center_scale_ori(x, torch.ones(1, 5, 1, 1))), (torch.rand(1, 5, 2),)
@cand
def km_rgb_hsv():
    import kornia.color as K
    return K.rgb_to_hsv, (torch.rand(2, 3, 8, 8),)
@cand
def km_sobel():
    import kornia.filters as F
    return F.spatial_gradient, (torch.rand(2, 3, 8, 8),)
@cand
def tm_acc():
    from torchmetrics.functional.classification import multiclass_accuracy
    return (lambda p, t: multiclass_accuracy(p, t, 5)), (torch.randn(8, 5), torch.randint(0, 5, (8,)))
@cand
def tm_acc_novalid():
    from torchmetrics.functional.classification import multiclass_accuracy
    return (lambda p, t: multiclass_accuracy(p, t, 5, validate_args=False)), (torch.randn(8, 5), torch.randint(0, 5, (8,)))
@cand
def tm_auroc():
    from torchmetrics.functional.classification import binary_auroc
    return (lambda p, t: binary_auroc(p, t, validate_args=False)), (torch.rand(8), torch.randint(0, 2, (8,)))
@cand
def tm_pearson():
    from torchmetrics.functional import pearson_corrcoef
    return pearson_corrcoef, (torch.randn(8), torch.randn(8))
@cand
def tm_spearman():
    from torchmetrics.functional import spearman_corrcoef
    return spearman_corrcoef, (torch.randn(8), torch.randn(8))
@cand
def tm_psnr():
    from torchmetrics.functional.image import peak_signal_noise_ratio
    return (lambda a, b: peak_signal_noise_ratio(a, b)), (torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8))
@cand
def tm_ssim():
    from torchmetrics.functional.image import structural_similarity_index_measure
    return (lambda a, b: structural_similarity_index_measure(a, b, data_range=1.0)), (torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 16))
@cand
def tm_confmat():
    from torchmetrics.functional.classification import multiclass_confusion_matrix
    return (lambda p, t: multiclass_confusion_matrix(p, t, 5, validate_args=False)), (torch.randn(8, 5), torch.randint(0, 5, (8,)))
@cand
def tm_retrieval():
    from torchmetrics.functional.retrieval import retrieval_normalized_dcg
    return retrieval_normalized_dcg, (torch.rand(8), torch.randint(0, 2, (8,)))
@cand
def tm_dice():
    from torchmetrics.functional.segmentation import dice_score
    return (lambda p, t: dice_score(p, t, 3, input_format="index")), (torch.randint(0, 3, (2, 8, 8)), torch.randint(0, 3, (2, 8, 8)))
@cand
def tm_mean_iou():
    from torchmetrics.functional.segmentation import mean_iou
    return (lambda p, t: mean_iou(p, t, 3, input_format="index")), (torch.randint(0, 3, (2, 8, 8)), torch.randint(0, 3, (2, 8, 8)))
@cand
def tm_calib():
    from torchmetrics.functional.classification import binary_calibration_error
    return (lambda p, t: binary_calibration_error(p, t, validate_args=False)), (torch.rand(8), torch.randint(0, 2, (8,)))
@cand
def tm_r2():
    from torchmetrics.functional import r2_score
    return r2_score, (torch.randn(8), torch.randn(8))
@cand
def tm_kl():
    from torchmetrics.functional import kl_divergence
    return kl_divergence, (torch.rand(4, 5).softmax(-1), torch.rand(4, 5).softmax(-1))
@cand
def tm_ap():
    from torchmetrics.functional.classification import binary_average_precision
    return (lambda p, t: binary_average_precision(p, t, validate_args=False)), (torch.rand(8), torch.randint(0, 2, (8,)))
@cand
def tm_f1():
    from torchmetrics.functional.classification import multiclass_f1_score
    return (lambda p, t: multiclass_f1_score(p, t, 5, validate_args=False)), (torch.randn(8, 5), torch.randint(0, 5, (8,)))

# set 2 (was probe_libs2.py)
@cand2
def tf_detr_post():
    from transformers.models.detr.image_processing_detr import DetrImageProcessor
    from types import SimpleNamespace
    p = DetrImageProcessor()
    def f(l, b):
        return p.post_process_object_detection(SimpleNamespace(logits=l, pred_boxes=b), threshold=0.5, target_sizes=[(32, 32), (32, 32)])
    return f, (torch.randn(2, 5, 4), torch.rand(2, 5, 4))
@cand2
def tf_packed():
    from transformers.masking_utils import find_packed_sequence_indices
    return find_packed_sequence_indices, (torch.tensor([[0, 1, 2, 0, 1, 2]]),)
@cand2
def tf_grounding():
    from transformers.models.owlvit.image_processing_owlvit import box_iou
    return box_iou, (torch.rand(3,4)+torch.tensor([0,0,1,1.]), torch.rand(3,4)+torch.tensor([0,0,1,1.]))
@cand2
def df_fourier():
    from diffusers.utils.torch_utils import fourier_filter
    return (lambda x: fourier_filter(x, 1, 0.9)), (torch.randn(1, 4, 8, 8),)
@cand2
def df_snr():
    from diffusers.training_utils import compute_snr
    from diffusers import DDPMScheduler
    s = DDPMScheduler()
    return (lambda t: compute_snr(s, t)), (torch.tensor([10, 500]),)
@cand2
def df_flow_step():
    from diffusers import FlowMatchEulerDiscreteScheduler
    s = FlowMatchEulerDiscreteScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand2
def df_heun():
    from diffusers import HeunDiscreteScheduler
    s = HeunDiscreteScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand2
def df_pndm():
    from diffusers import PNDMScheduler
    s = PNDMScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand2
def df_unipc():
    from diffusers import UniPCMultistepScheduler
    s = UniPCMultistepScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand2
def df_lcm():
    from diffusers import LCMScheduler
    s = LCMScheduler(); s.set_timesteps(4)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[1])
@cand2
def df_sd3_weight():
    from diffusers.training_utils import compute_density_for_timestep_sampling
    return (lambda x: compute_density_for_timestep_sampling("logit_normal", 2, logit_mean=0.0, logit_std=1.0) * x), (torch.ones(2),)
@cand2
def df_get_sigmas():
    from diffusers import FlowMatchEulerDiscreteScheduler
    s = FlowMatchEulerDiscreteScheduler(); s.set_timesteps(10)
    def get_sigmas(timesteps, n_dim=4):
        sigmas = s.sigmas; schedule_timesteps = s.timesteps
        step_indices = [(schedule_timesteps == t).nonzero().item() for t in timesteps]
        sigma = sigmas[step_indices].flatten()
        while len(sigma.shape) < n_dim: sigma = sigma.unsqueeze(-1)
        return sigma
    return get_sigmas, (s.timesteps[[1, 3]],)

# set 3 (was probe_libs3.py)
@cand3
def tf_llava_mask():
    from transformers.models.llava.modeling_llava import LlavaModel
    class M:
        config = type("c", (), {"image_token_id": 5})()
        def get_input_embeddings(self): return torch.nn.Embedding(10, 4)
    def f(ids, emb, feats):
        return LlavaModel.get_placeholder_mask(M(), ids, emb, feats)
    ids = torch.tensor([[1, 5, 5, 2]]); return f, (ids, torch.randn(1, 4, 4), torch.randn(2, 4))
@cand3
def tf_warn_pad():
    from transformers import BertConfig, BertModel
    m = BertModel(BertConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16, vocab_size=50))
    return (lambda ids: m.warn_if_padding_and_no_attention_mask(ids, None)), (torch.randint(1, 50, (2, 5)),)
@cand3
def tf_stop_eos():
    from transformers.generation.stopping_criteria import EosTokenCriteria, MaxLengthCriteria, StoppingCriteriaList
    return (lambda ids, s: EosTokenCriteria(eos_token_id=3)(ids, s)), (torch.randint(0, 9, (2, 5)), torch.randn(2, 9))
@cand3
def tf_isin():
    from transformers.pytorch_utils import isin_mps_friendly
    return isin_mps_friendly, (torch.randint(0, 9, (2, 5)), torch.tensor([1, 3]))
@cand3
def km_focal():
    import kornia.losses as L
    return (lambda p, t: L.focal_loss(p, t, 0.5, reduction="mean")), (torch.randn(2, 3, 4, 4), torch.randint(0, 3, (2, 4, 4)))
@cand3
def km_dice():
    import kornia.losses as L
    return (lambda p, t: L.dice_loss(p, t)), (torch.randn(2, 3, 4, 4), torch.randint(0, 3, (2, 4, 4)))
@cand3
def km_confmat():
    import kornia.metrics as M
    return (lambda p, t: M.confusion_matrix(p, t, 3)), (torch.randint(0, 3, (2, 8)), torch.randint(0, 3, (2, 8)))
@cand3
def km_miou():
    import kornia.metrics as M
    return (lambda p, t: M.mean_iou(p, t, 3)), (torch.randint(0, 3, (2, 8)), torch.randint(0, 3, (2, 8)))
@cand3
def km_clahe():
    import kornia.enhance as E
    return (lambda x: E.equalize_clahe(x, grid_size=(2, 2))), (torch.rand(1, 1, 16, 16),)
@cand3
def km_validate_bbox():
    from kornia.geometry.bbox import validate_bbox, infer_bbox_shape
    return infer_bbox_shape, (torch.tensor([[[0., 0], [2, 0], [2, 2], [0, 2]]]),)
@cand3
def km_boxes():
    from kornia.geometry.boxes import Boxes
    return (lambda b: Boxes.from_tensor(b, mode="xyxy").to_tensor("xywh")), (torch.tensor([[[0., 0, 2, 2], [1, 1, 3, 4]]]),)
@cand3
def km_ssim():
    import kornia.losses as L
    return (lambda a, b: L.ssim_loss(a, b, 5)), (torch.rand(1, 1, 16, 16), torch.rand(1, 1, 16, 16))
@cand3
def km_psnr():
    import kornia.metrics as M
    return (lambda a, b: M.psnr(a, b, 1.0)), (torch.rand(1, 1, 16, 16), torch.rand(1, 1, 16, 16))
@cand3
def km_undistort():
    import kornia.geometry.calibration as C
    K = torch.eye(3)[None]; d = torch.zeros(1, 4)
    return (lambda p: C.undistort_points(p, K, d)), (torch.rand(1, 5, 2),)
@cand3
def km_rgb_to_lab():
    import kornia.color as C
    return C.rgb_to_lab, (torch.rand(1, 3, 8, 8),)
@cand3
def km_depth_to_3d():
    import kornia.geometry.depth as D
    return (lambda d: D.depth_to_3d_v2(d[0, 0], torch.eye(3))), (torch.rand(1, 1, 8, 8),)
@cand3
def km_aug_mixup():
    import kornia.augmentation as A
    return A.RandomMixUpV2(p=1.0, data_keys=["input", "class"]), (torch.rand(2, 3, 8, 8), torch.tensor([0, 1]))
@cand3
def km_aug_erasing():
    import kornia.augmentation as A
    return A.RandomErasing(p=1.0), (torch.rand(2, 3, 8, 8),)
@cand3
def km_aug_crop():
    import kornia.augmentation as A
    return A.RandomResizedCrop((8, 8), p=1.0), (torch.rand(2, 3, 16, 16),)
@cand3
def km_aug_posterize():
    import kornia.augmentation as A
    return A.RandomPosterize(bits=3, p=1.0), (torch.rand(2, 3, 8, 8),)
@cand3
def km_aug_solarize():
    import kornia.augmentation as A
    return A.RandomSolarize(p=1.0), (torch.rand(2, 3, 8, 8),)
@cand3
def km_aug_motion():
    import kornia.augmentation as A
    return A.RandomMotionBlur(3, 35., 0.5, p=1.0), (torch.rand(2, 3, 8, 8),)
@cand3
def km_aug_planckian():
    import kornia.augmentation as A
    return A.RandomPlanckianJitter(p=1.0), (torch.rand(2, 3, 8, 8),)
@cand3
def km_aug_gauss():
    import kornia.augmentation as A
    return A.RandomGaussianNoise(p=1.0), (torch.rand(2, 3, 8, 8),)

argv = sys.argv[1:]
which = 1
if argv[:1] == ["--set"]:
    which, argv = int(argv[1]), argv[2:]
C = SETS[which]
names = argv or list(C)
for n in names:
    try:
        f, args = C[n]()
        dyn.reset()
        e = dyn.explain(f)(*args)
        rs = []
        for b in e.break_reasons:
            r = b.reason.splitlines()[0][:90]
            fr = b.user_stack[-1] if b.user_stack else None
            rs.append(f"{r} @ {fr.filename.split('site-packages/')[-1]}:{fr.lineno}" if fr else r)
        print(n, e.graph_break_count, rs[:4] if which == 3 else rs, flush=True)
    except Exception as ex:
        print(n, "ERR", type(ex).__name__, str(ex).splitlines()[0][:150] if str(ex) else "", flush=True)

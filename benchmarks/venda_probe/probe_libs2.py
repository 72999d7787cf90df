import torch, sys, warnings
warnings.filterwarnings("ignore")
sys.argv=[sys.argv[0]]
exec(open('' + __import__('os').path.join(__import__('os').path.dirname(__file__), 'probe_libs.py') + '').read().split("names = sys.argv")[0])
C.clear()
@cand
def tf_detr_post():
    from transformers.models.detr.image_processing_detr import DetrImageProcessor
    from types import SimpleNamespace
    p = DetrImageProcessor()
    def f(l, b):
        return p.post_process_object_detection(SimpleNamespace(logits=l, pred_boxes=b), threshold=0.5, target_sizes=[(32, 32), (32, 32)])
    return f, (torch.randn(2, 5, 4), torch.rand(2, 5, 4))
@cand
def tf_packed():
    from transformers.masking_utils import find_packed_sequence_indices
    return find_packed_sequence_indices, (torch.tensor([[0, 1, 2, 0, 1, 2]]),)
@cand
def tf_grounding():
    from transformers.models.owlvit.image_processing_owlvit import box_iou
    return box_iou, (torch.rand(3,4)+torch.tensor([0,0,1,1.]), torch.rand(3,4)+torch.tensor([0,0,1,1.]))
@cand
def df_fourier():
    from diffusers.utils.torch_utils import fourier_filter
    return (lambda x: fourier_filter(x, 1, 0.9)), (torch.randn(1, 4, 8, 8),)
@cand
def df_snr():
    from diffusers.training_utils import compute_snr
    from diffusers import DDPMScheduler
    s = DDPMScheduler()
    return (lambda t: compute_snr(s, t)), (torch.tensor([10, 500]),)
@cand
def df_flow_step():
    from diffusers import FlowMatchEulerDiscreteScheduler
    s = FlowMatchEulerDiscreteScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_heun():
    from diffusers import HeunDiscreteScheduler
    s = HeunDiscreteScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_pndm():
    from diffusers import PNDMScheduler
    s = PNDMScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_unipc():
    from diffusers import UniPCMultistepScheduler
    s = UniPCMultistepScheduler(); s.set_timesteps(10)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[3])
@cand
def df_lcm():
    from diffusers import LCMScheduler
    s = LCMScheduler(); s.set_timesteps(4)
    def f(x, t): return s.step(torch.randn_like(x), t, x).prev_sample
    return f, (torch.randn(1, 4, 8, 8), s.timesteps[1])
@cand
def df_sd3_weight():
    from diffusers.training_utils import compute_density_for_timestep_sampling
    return (lambda x: compute_density_for_timestep_sampling("logit_normal", 2, logit_mean=0.0, logit_std=1.0) * x), (torch.ones(2),)
@cand
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
names = list(C)
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
        print(n, e.graph_break_count, rs, flush=True)
    except Exception as ex:
        print(n, "ERR", type(ex).__name__, str(ex).splitlines()[0][:150] if str(ex) else "", flush=True)

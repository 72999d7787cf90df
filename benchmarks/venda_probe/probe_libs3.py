import torch, sys, warnings
warnings.filterwarnings("ignore")
exec(open('' + __import__('os').path.join(__import__('os').path.dirname(__file__), 'probe_libs.py') + '').read().split("names = sys.argv")[0])
C.clear()
@cand
def tf_llava_mask():
    from transformers.models.llava.modeling_llava import LlavaModel
    class M:
        config = type("c", (), {"image_token_id": 5})()
        def get_input_embeddings(self): return torch.nn.Embedding(10, 4)
    def f(ids, emb, feats):
        return LlavaModel.get_placeholder_mask(M(), ids, emb, feats)
    ids = torch.tensor([[1, 5, 5, 2]]); return f, (ids, torch.randn(1, 4, 4), torch.randn(2, 4))
@cand
def tf_warn_pad():
    from transformers import BertConfig, BertModel
    m = BertModel(BertConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16, vocab_size=50))
    return (lambda ids: m.warn_if_padding_and_no_attention_mask(ids, None)), (torch.randint(1, 50, (2, 5)),)
@cand
def tf_stop_eos():
    from transformers.generation.stopping_criteria import EosTokenCriteria, MaxLengthCriteria, StoppingCriteriaList
    return (lambda ids, s: EosTokenCriteria(eos_token_id=3)(ids, s)), (torch.randint(0, 9, (2, 5)), torch.randn(2, 9))
@cand
def tf_isin():
    from transformers.pytorch_utils import isin_mps_friendly
    return isin_mps_friendly, (torch.randint(0, 9, (2, 5)), torch.tensor([1, 3]))
@cand
def km_focal():
    import kornia.losses as L
    return (lambda p, t: L.focal_loss(p, t, 0.5, reduction="mean")), (torch.randn(2, 3, 4, 4), torch.randint(0, 3, (2, 4, 4)))
@cand
def km_dice():
    import kornia.losses as L
    return (lambda p, t: L.dice_loss(p, t)), (torch.randn(2, 3, 4, 4), torch.randint(0, 3, (2, 4, 4)))
@cand
def km_confmat():
    import kornia.metrics as M
    return (lambda p, t: M.confusion_matrix(p, t, 3)), (torch.randint(0, 3, (2, 8)), torch.randint(0, 3, (2, 8)))
@cand
def km_miou():
    import kornia.metrics as M
    return (lambda p, t: M.mean_iou(p, t, 3)), (torch.randint(0, 3, (2, 8)), torch.randint(0, 3, (2, 8)))
@cand
def km_clahe():
    import kornia.enhance as E
    return (lambda x: E.equalize_clahe(x, grid_size=(2, 2))), (torch.rand(1, 1, 16, 16),)
@cand
def km_validate_bbox():
    from kornia.geometry.bbox import validate_bbox, infer_bbox_shape
    return infer_bbox_shape, (torch.tensor([[[0., 0], [2, 0], [2, 2], [0, 2]]]),)
@cand
def km_boxes():
    from kornia.geometry.boxes import Boxes
    return (lambda b: Boxes.from_tensor(b, mode="xyxy").to_tensor("xywh")), (torch.tensor([[[0., 0, 2, 2], [1, 1, 3, 4]]]),)
@cand
def km_ssim():
    import kornia.losses as L
    return (lambda a, b: L.ssim_loss(a, b, 5)), (torch.rand(1, 1, 16, 16), torch.rand(1, 1, 16, 16))
@cand
def km_psnr():
    import kornia.metrics as M
    return (lambda a, b: M.psnr(a, b, 1.0)), (torch.rand(1, 1, 16, 16), torch.rand(1, 1, 16, 16))
@cand
def km_undistort():
    import kornia.geometry.calibration as C
    K = torch.eye(3)[None]; d = torch.zeros(1, 4)
    return (lambda p: C.undistort_points(p, K, d)), (torch.rand(1, 5, 2),)
@cand
def km_rgb_to_lab():
    import kornia.color as C
    return C.rgb_to_lab, (torch.rand(1, 3, 8, 8),)
@cand
def km_depth_to_3d():
    import kornia.geometry.depth as D
    return (lambda d: D.depth_to_3d_v2(d[0, 0], torch.eye(3))), (torch.rand(1, 1, 8, 8),)
@cand
def km_aug_mixup():
    import kornia.augmentation as A
    return A.RandomMixUpV2(p=1.0, data_keys=["input", "class"]), (torch.rand(2, 3, 8, 8), torch.tensor([0, 1]))
@cand
def km_aug_erasing():
    import kornia.augmentation as A
    return A.RandomErasing(p=1.0), (torch.rand(2, 3, 8, 8),)
@cand
def km_aug_crop():
    import kornia.augmentation as A
    return A.RandomResizedCrop((8, 8), p=1.0), (torch.rand(2, 3, 16, 16),)
@cand
def km_aug_posterize():
    import kornia.augmentation as A
    return A.RandomPosterize(bits=3, p=1.0), (torch.rand(2, 3, 8, 8),)
@cand
def km_aug_solarize():
    import kornia.augmentation as A
    return A.RandomSolarize(p=1.0), (torch.rand(2, 3, 8, 8),)
@cand
def km_aug_motion():
    import kornia.augmentation as A
    return A.RandomMotionBlur(3, 35., 0.5, p=1.0), (torch.rand(2, 3, 8, 8),)
@cand
def km_aug_planckian():
    import kornia.augmentation as A
    return A.RandomPlanckianJitter(p=1.0), (torch.rand(2, 3, 8, 8),)
@cand
def km_aug_gauss():
    import kornia.augmentation as A
    return A.RandomGaussianNoise(p=1.0), (torch.rand(2, 3, 8, 8),)
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
        print(n, e.graph_break_count, rs[:4], flush=True)
    except Exception as ex:
        print(n, "ERR", type(ex).__name__, str(ex).splitlines()[0][:150] if str(ex) else "", flush=True)

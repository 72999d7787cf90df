# spec: {"model": "hf_bert_span_decode.py:BertSpanExtractor", "inputs": [{"tensor": [2, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 120}]}
import torch
from torch import nn
from transformers import BertConfig, BertModel


class BertSpanExtractor(nn.Module):
    """Extractive QA on a tiny BERT (random weights) with span decoding in the forward."""

    def __init__(self, max_answer_len=5):
        super().__init__()
        cfg = BertConfig(vocab_size=120, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
        self.bert = BertModel(cfg, add_pooling_layer=False)
        self.qa = nn.Linear(32, 2)
        self.max_answer_len = max_answer_len

    def forward(self, input_ids):
        seq = self.bert(input_ids=input_ids).last_hidden_state
        start_logits, end_logits = self.qa(seq).unbind(-1)
        spans = []
        for b in range(input_ids.shape[0]):
            s = int(start_logits[b].argmax())
            e = int(end_logits[b, s : s + self.max_answer_len].argmax()) + s
            spans.append(torch.stack([start_logits[b, s], end_logits[b, e]]))
        return start_logits, end_logits, torch.stack(spans)

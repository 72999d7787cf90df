# spec: {"model": "asr_pack_padded_gru.py:PackedEncoder", "init": {"args": [6, 8]}, "inputs": [{"tensor": [3, 7, 6]}, {"tensor": [3], "dtype": "int64", "data": [7, 4, 5]}]}
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class PackedEncoder(nn.Module):
    """Speech encoder over padded utterances with packed sequences (PyTorch tutorial style)."""

    def __init__(self, n_in, hidden):
        super().__init__()
        self.inp = nn.Linear(n_in, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, feats, lengths):
        x = self.inp(feats).relu()
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        return out.sum(1) / lengths.unsqueeze(1)

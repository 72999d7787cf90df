# spec: {"model": "debug_pickle_batch_snapshot.py:SnapshotClassifier", "init": {"args": [8, 3]}, "inputs": [{"tensor": [4, 8]}]}
import pickle

from torch import nn


class SnapshotClassifier(nn.Module):
    """Classifier that keeps a pickled copy of the last logits for a crash report."""

    def __init__(self, dim, classes):
        super().__init__()
        self.fc = nn.Linear(dim, classes)
        self.last_blob = b""

    def forward(self, x):
        logits = self.fc(x)
        self.last_blob = pickle.dumps(logits.detach())
        return logits.log_softmax(-1)

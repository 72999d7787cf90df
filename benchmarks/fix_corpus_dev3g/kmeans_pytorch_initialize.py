# spec: {"model": "kmeans_pytorch_initialize.py:CodebookInitQuantizer", "init": {"args": [8, 4]}, "inputs": [{"tensor": [32, 8]}]}
import numpy as np
import torch
from torch import nn


# vendored from kmeans-pytorch 0.3 kmeans_pytorch/__init__.py
def initialize(X, num_clusters):
    """
    initialize cluster centers
    :param X: (torch.tensor) matrix
    :param num_clusters: (int) number of clusters
    :return: (np.array) initial state
    """
    num_samples = len(X)
    indices = np.random.choice(num_samples, num_clusters, replace=False)
    initial_state = X[indices]
    return initial_state


def pairwise_distance(data1, data2, device=torch.device('cpu')):
    # transfer to device
    data1, data2 = data1.to(device), data2.to(device)

    # N*1*M
    A = data1.unsqueeze(dim=1)

    # 1*N*M
    B = data2.unsqueeze(dim=0)

    dis = (A - B) ** 2.0
    # return N*N matrix for pairwise distance
    dis = dis.sum(dim=-1).squeeze()
    return dis


class CodebookInitQuantizer(nn.Module):
    def __init__(self, dim, num_clusters):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.num_clusters = num_clusters

    def forward(self, x):
        z = self.encoder(x)
        centers = initialize(z.detach(), self.num_clusters)
        dis = pairwise_distance(z, centers)
        choice_cluster = torch.argmin(dis, dim=1)
        return centers[choice_cluster], choice_cluster

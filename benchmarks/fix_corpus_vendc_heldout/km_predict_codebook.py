# spec: {"model": "km_predict_codebook.py:SpeechUnitTokenizer", "init": {"args": [8, 5]}, "inputs": [{"tensor": [2, 12, 8]}], "calls": 2}
import torch
from torch import nn


# vendored from kmeans-pytorch 0.3 kmeans_pytorch/__init__.py
def kmeans_predict(
        X,
        cluster_centers,
        distance='euclidean',
        device=torch.device('cpu')
):
    """
    predict using cluster centers
    :param X: (torch.tensor) matrix
    :param cluster_centers: (torch.tensor) cluster centers
    :param distance: (str) distance [options: 'euclidean', 'cosine'] [default: 'euclidean']
    :param device: (torch.device) device [default: 'cpu']
    :return: (torch.tensor) cluster ids
    """
    print(f'predicting on {device}..')

    if distance == 'euclidean':
        pairwise_distance_function = pairwise_distance
    elif distance == 'cosine':
        pairwise_distance_function = pairwise_cosine
    else:
        raise NotImplementedError

    # convert to float
    X = X.float()

    # transfer to device
    X = X.to(device)

    dis = pairwise_distance_function(X, cluster_centers)
    choice_cluster = torch.argmin(dis, dim=1)

    return choice_cluster.cpu()


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


def pairwise_cosine(data1, data2, device=torch.device('cpu')):
    # transfer to device
    data1, data2 = data1.to(device), data2.to(device)

    # N*1*M
    A = data1.unsqueeze(dim=1)

    # 1*N*M
    B = data2.unsqueeze(dim=0)

    # normalize the points  | [0.3, 0.4] -> [0.3/sqrt(0.09 + 0.16), 0.4/sqrt(0.09 + 0.16)] = [0.3/0.5, 0.4/0.5]
    A_normalized = A / A.norm(dim=-1, keepdim=True)
    B_normalized = B / B.norm(dim=-1, keepdim=True)

    cosine = A_normalized * B_normalized

    # return N*N matrix for pairwise distance
    cosine_dis = 1 - cosine.sum(dim=-1).squeeze()
    return cosine_dis


class SpeechUnitTokenizer(nn.Module):
    """HuBERT-style discrete units: frame features assigned to k-means centroids (fitted offline, a buffer here)."""

    def __init__(self, dim, num_units):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("cluster_centers", torch.randn(num_units, dim))
        self.unit_embed = nn.Embedding(num_units, dim)

    def forward(self, feats):
        h = self.proj(feats)
        b, t, d = h.shape
        units = kmeans_predict(h.reshape(-1, d), self.cluster_centers, distance="cosine")
        return h + self.unit_embed(units.view(b, t))

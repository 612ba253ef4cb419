"""Clusters: several hosts on a distributed switch, admission, DRS-like placement and vMotion."""

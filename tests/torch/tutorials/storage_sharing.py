# Storages: a tensor and its views share one block of memory.
import torch

a = torch.arange(6.0)
print(a.storage().data_ptr() == a[1:].storage().data_ptr())
s = a.storage()
print(s)
print(a.untyped_storage().nbytes(), a[2:].storage_offset())
s[0] = 10.0
print(a)

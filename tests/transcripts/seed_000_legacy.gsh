# Seed 000 (../shared/seeds/000_5d0aa6e366bca92f.txt): Variable, grad_fn, backward with
# a `gradient` argument, accumulation and zero_(), in the PyTorch 0.2/0.3 style.
#
# The seed's IPython session as it was typed: `>>>` inputs, `Out[n]:` results, its
# comments kept as the seed has them (Chinese text mis-decoded by the blog). The
# expected output follows legacy-format.md, which differs from the seed's blog copy in
# one way: the copy collapsed the column spacing. PyTorch 0.3 right-aligns every cell
# of a tensor in one width and joins cells with one space, so `z` prints ` 27  27`
# (width 3), not ` 27 27`, and x.grad = [0.2, 2, 20] prints `  0.2000` / ` 20.0000`
# (width 8), not ` 0.2000` (legacy-format.md §3-§5, examples E1, E2).
# IPython starts a multi-line value on the line after `Out[n]:`; an empty line there is
# not compared. The traceback is the seed's own: only its last line is compared.
# replay: style=legacy prompt=ipython

# replay: session=the IPython session

>>> import torch
>>> from torch.autograd import Variable

>>> x = Variable(torch.ones(2,2), requires_grad=True)
>>> y = x + 2
>>> y.grad_fn
Out[6]: <torch.autograd.function.AddConstantBackward at 0x229e7068138>
>>> y.grad

>>> z = y*y*3
>>> z.grad_fn
Out[9]: <torch.autograd.function.MulConstantBackward at 0x229e86cc5e8>
>>> z
Out[10]: 
Variable containing:
 27  27
 27  27
[torch.FloatTensor of size 2x2]
>>> out = z.mean()
>>> out.grad_fn
Out[12]: <torch.autograd.function.MeanBackward at 0x229e86cc408>
>>> out.backward()   # 這里因?yàn)閛ut為scalar標(biāo)量，所以參數(shù)不需要填寫
>>> x.grad
Out[19]: 
Variable containing:
 4.5000  4.5000
 4.5000  4.5000
[torch.FloatTensor of size 2x2]
>>> out  # out為標(biāo)量
Out[20]: 
Variable containing:
 27
[torch.FloatTensor of size 1]

>>> x = Variable(torch.Tensor([2,2,2]), requires_grad=True)
>>> y = x*2
>>> y
Out[52]: 
Variable containing:
 4
 4
 4
[torch.FloatTensor of size 3]
>>> y.backward() # 因?yàn)閥輸出為非標(biāo)量，求向量間元素的梯度需要對(duì)所求的元素進(jìn)行標(biāo)注，用相同長(zhǎng)度的序列進(jìn)行標(biāo)注
Traceback (most recent call last):
 File "C:\Users\dell\Anaconda3\envs\my-pytorch\lib\site-packages\IPython\core\interactiveshell.py", line 2862, in run_code
  exec(code_obj, self.user_global_ns, self.user_ns)
 File "<ipython-input-53-95acac9c3254>", line 1, in <module>
  y.backward()
 File "C:\Users\dell\Anaconda3\envs\my-pytorch\lib\site-packages\torch\autograd\variable.py", line 156, in backward
  torch.autograd.backward(self, gradient, retain_graph, create_graph, retain_variables)
 File "C:\Users\dell\Anaconda3\envs\my-pytorch\lib\site-packages\torch\autograd\__init__.py", line 86, in backward
  grad_variables, create_graph = _make_grads(variables, grad_variables, create_graph)
 File "C:\Users\dell\Anaconda3\envs\my-pytorch\lib\site-packages\torch\autograd\__init__.py", line 34, in _make_grads
  raise RuntimeError("grad can be implicitly created only for scalar outputs")
RuntimeError: grad can be implicitly created only for scalar outputs

>>> y.backward(torch.FloatTensor([0.1, 1, 10]))
>>> x.grad        #注意這里的0.1,1.10為梯度求值比例
Out[55]: 
Variable containing:
  0.2000
  2.0000
 20.0000
[torch.FloatTensor of size 3]

# y = x*2 saved nothing for its backward, so in 0.2/0.3 a second backward through it
# works and adds to x.grad (PyTorch 2.x would raise here; see DESIGN.md).
>>> y.backward(torch.FloatTensor([0.1, 1, 10]))
>>> x.grad        # 梯度累積
Out[57]: 
Variable containing:
  0.4000
  4.0000
 40.0000
[torch.FloatTensor of size 3]

>>> x.grad.data.zero_() # 梯度累積進(jìn)行清零
Out[60]: 
 0
 0
 0
[torch.FloatTensor of size 3]
>>> x.grad       # 累積為空
Out[61]: 
Variable containing:
 0
 0
 0
[torch.FloatTensor of size 3]
>>> y.backward(torch.FloatTensor([0.1, 1, 10]))
>>> x.grad
Out[63]: 
Variable containing:
  0.2000
  2.0000
 20.0000
[torch.FloatTensor of size 3]

"""Every allocation and free of a fake-tensor run, as PyTorch's CUDA caching
allocator would be asked for them.

A TorchDispatchMode on top of FakeTensorMode sees every aten op below
autograd: each storage an op returns that did not exist before is an
allocation of storage.nbytes() bytes (views share their base's storage and are
not allocations), and a weakref finalizer on the storage's Python object
(PyTorch preserves it for the storage's life) reports the moment the last
reference dies: the free.  memory_allocated() counts blocks, so live bytes are
the requests rounded up to 512 (CUDACachingAllocator.cpp round_size); the
allocator's splitting of large blocks is the replay's business, not this one's.

Besides what the dispatcher sees, the caller adds kernel scratch (scratch())
and marks host tensors (host()): see cuda_rules.py."""

import contextlib
import math
import threading
import weakref

import torch
import torch.utils._pytree as pytree
from torch._subclasses.fake_tensor import FakeTensor, unset_fake_temporarily
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten


def install_host_random():
    """torch.rand / randn / randint called without a device make host tensors on a
    CUDA run too (OPT's layerdrop draws torch.rand([]) each layer and compares it
    with a float): real CPU tensors here, outside the fake mode, not counted."""
    import functools
    for name in ("rand", "randn", "randint"):
        orig = getattr(torch, name)
        if getattr(orig, "_host_wrapped", False):
            continue

        @functools.wraps(orig)
        def w(*a, _orig=orig, **k):
            if k.get("device") is None:
                with unset_fake_temporarily():
                    return _orig(*a, **k)
            return _orig(*a, **k)
        w._host_wrapped = True
        setattr(torch, name, w)


def _safe_softmax(x, dim, dtype=None):
    """aten _safe_softmax (CompositeExplicitAutograd, no CUDA kernel of its own: on CUDA its
    temporaries come from the caching allocator): softmax, the -inf mask of the input, its
    all-masked rows, and those rows zeroed. The zeroing is in place here: the H200 measurement of
    Falcon's math-backend prefill (h200-extra h12) holds two fp32 score tensors and the bool mask
    at its peak, not three (a `where` into a new tensor, as torch/_decomp's Python version writes
    it, would be 34% above that measurement)."""
    out = torch.softmax(x, dim, dtype=dtype)
    masked = x.eq(float("-inf"))
    masked_rows = masked.all(dim, keepdim=True)
    return out.masked_fill_(masked_rows, 0.0)


def _grouped_mm(a, b, offs=None, bias=None, out_dtype=None):
    """torch 2.11's meta kernel of _grouped_mm takes bf16 only; CUDA's _grouped_mm_cuda
    runs other dtypes through _grouped_mm_fallback (aten/src/ATen/native/cuda/Blas.cpp),
    which allocates the output (create_grouped_gemm_output_tensor) and fills it with mm_out."""
    if a.dtype == torch.bfloat16 and b.dtype == torch.bfloat16:
        return NotImplemented
    from torch._meta_registrations import _create_grouped_mm_output_tensor
    return _create_grouped_mm_output_tensor(a, b, offs, out_dtype)


DECOMPS = {aten._safe_softmax.default: _safe_softmax, aten._grouped_mm.default: _grouped_mm}


_COMPOSITE = {}


def _composite(func):
    c = _COMPOSITE.get(func)
    if c is None:
        c = _COMPOSITE[func] = torch._C._dispatch_has_kernel_for_dispatch_key(func.name(),
                                                                              "CompositeImplicitAutograd")
    return c


def blk(n):
    return 0 if n <= 0 else (n + 511) // 512 * 512


class Tracker(TorchDispatchMode):
    def __init__(self, on_op=None):
        super().__init__()
        self.live = {}          # id -> (bytes, category, label)
        self.by_storage = {}    # storage _cdata -> id
        self.cur = 0            # live bytes (512-rounded)
        self.events = []        # [op 'a'|'f', id, bytes, stream, category, label, phase index]
        self.phases = []        # [name, step, event index, live at start]
        self.phase_peak = []    # per phase: [peak, owner, op index]
        self.nid = 0
        self.nops = 0
        self.mod_stack = []
        self.bwd_module = ""
        self.host_depth = 0
        self.cat = "other"
        self.in_backward = False
        self.timeline = []      # (op index, live) after every op, when record_ops
        self.record_ops = False
        self.dummy_scalars = False
        self.handed = {}  # storage key -> id whose block an in-place gradient sum took over
        self.on_op = on_op
        self.lock = threading.RLock()
        self.phase("process start", 0)

    # ---- phases ------------------------------------------------------------------
    def phase(self, name, step):
        self.phases.append([name, step, len(self.events), self.cur])
        self.phase_peak.append([self.cur, "(phase start)", self.nops])

    def owner(self, what):
        mod = self.mod_stack[-1] if self.mod_stack else self.bwd_module
        return f"{mod}:{what}" if mod else what

    # ---- allocations -------------------------------------------------------------
    def alloc(self, nbytes, label, cat=None, stream=0):
        with self.lock:
            self.nid += 1
            i = self.nid
            c = cat or self.cat
            self.live[i] = (nbytes, c, label)
            self.cur += blk(nbytes)
            self.events.append(["a", i, nbytes, stream, c, label, len(self.phases) - 1])
            pk = self.phase_peak[-1]
            if self.cur > pk[0]:
                pk[0], pk[1], pk[2] = self.cur, self.owner(label), self.nops
            return i

    def free(self, i):
        with self.lock:
            rec = self.live.pop(i, None)
            if rec is None:
                return
            self.cur -= blk(rec[0])
            self.events.append(["f", i, rec[0], 0, rec[1], rec[2], len(self.phases) - 1])

    def _storage_freed(self, key, i):
        if self.by_storage.get(key) == i:
            del self.by_storage[key]
        if self.handed.get(key) == i:  # its block now belongs to the in-place sum (inplace_accumulate)
            del self.handed[key]
            return
        self.free(i)

    def inplace_accumulate(self, func, args, kwargs, out):
        """The autograd engine sums two gradients of one tensor in place when it holds the only
        reference to one of them (input_buffer.cpp accumulate, can_accumulate_inplace; the same in
        AccumulateGrad), unless the tensor is a subclass: fake tensors always take `old + var`.
        Under no-grad in backward, an add of two dense tensors of one shape and dtype is that
        sum: its output is counted in the first input's block."""
        if (func is not aten.add.Tensor or not self.in_backward or torch.is_grad_enabled() or kwargs
                or len(args) != 2 or not all(isinstance(x, torch.Tensor) for x in args)):
            return False
        a, b = args
        if a.shape != b.shape or a.dtype != b.dtype or out.shape != a.shape or not a.is_contiguous():
            return False
        ka = a.untyped_storage()._cdata
        i = self.by_storage.get(ka)
        if i is None or a.untyped_storage().nbytes() != out.untyped_storage().nbytes():
            return False
        st = out.untyped_storage()
        self.handed[ka] = i
        self.by_storage[st._cdata] = i
        weakref.finalize(st, self._storage_freed, st._cdata, i)
        return True

    def track(self, t, label, cat=None):
        """Counts t's storage if it is new; returns its id (None for a known or empty one)."""
        if not isinstance(t, torch.Tensor) or self.host_depth:
            return None
        local = getattr(t, "_local_tensor", None)  # a DTensor (FSDP2's shards): its local tensor's storage
        if isinstance(local, torch.Tensor):
            t = local
        st = t.untyped_storage()
        key = st._cdata
        if key in self.by_storage:
            return None
        nb = st.nbytes()
        if nb <= 0:
            return None
        i = self.alloc(nb, label, cat)
        self.by_storage[key] = i
        weakref.finalize(st, self._storage_freed, key, i)
        return i

    def id_of(self, t):
        try:
            return self.by_storage.get(t.untyped_storage()._cdata)
        except Exception:
            return None

    def relabel(self, t, cat):
        """Sets the category of t's allocation event (gradients, optimizer state)."""
        i = self.id_of(t)
        if i is None:
            return
        nb, _, label = self.live[i]
        self.live[i] = (nb, cat, label)
        for e in reversed(self.events):
            if e[1] == i and e[0] == "a":
                e[4] = cat
                break

    @contextlib.contextmanager
    def host(self):
        """Tensors made inside are host (CPU) tensors on a CUDA run: not counted."""
        self.host_depth += 1
        try:
            yield
        finally:
            self.host_depth -= 1

    @contextlib.contextmanager
    def category(self, cat):
        old, self.cat = self.cat, cat
        try:
            yield
        finally:
            self.cat = old

    def scratch(self, nbytes, label, stream=0):
        """Kernel scratch taken from the caching allocator inside one op: alloc now, free() later."""
        return self.alloc(nbytes, label, "workspace" if "workspace" in label else self.cat, stream)

    # ---- dispatch ----------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        flat = pytree.arg_tree_leaves(*args, **kwargs)
        tensors = [a for a in flat if isinstance(a, torch.Tensor)]
        if tensors and not any(isinstance(a, FakeTensor) for a in tensors):
            # ops on host tensors (install_host_random) stay on the host: real CPU
            # tensors, so that .item() works, not counted
            with unset_fake_temporarily():
                return func(*args, **kwargs)
        pre = self.on_op(self, func, args, kwargs, None) if self.on_op else None
        if func is aten._local_scalar_dense.default and self.dummy_scalars:
            # an optimizer reading a value (Adafactor's RMS, lr schedules): no memory depends on it
            t = args[0]
            return True if t.dtype == torch.bool else 1.0 if t.is_floating_point() else 1
        if func.namespace == "aten" and _composite(func):
            # under inference_mode no autograd key decomposes composite ops before this mode: run
            # their composite code here, op by op (softmax(dtype)'s conversion copy, dropout's
            # alias of its input when p is 0), as CUDA runs it
            with self:
                out = func.decompose(*args, **kwargs)
            if out is not NotImplemented:
                return out
        dec = DECOMPS.get(func)
        if dec is not None:  # a kernel whose CUDA code allocates inside: its own code, seen op by op
            with self:
                out = dec(*args, **kwargs)
        if dec is None or out is NotImplemented:
            out = func(*args, **kwargs)
        self.nops += 1
        name = func.__name__ if hasattr(func, "__name__") else str(func)
        if self.in_backward:
            node = torch._C._current_autograd_node()
            if node is not None:
                name = f"{node.name()}/{name}"
        outs = out if isinstance(out, (tuple, list)) else (out,)
        if isinstance(out, torch.Tensor) and self.inplace_accumulate(func, args, kwargs, out):
            outs = ()
        for o in outs:
            if isinstance(o, torch.Tensor):
                self.track(o, name)
            elif isinstance(o, (tuple, list)):
                for x in o:
                    self.track(x, name)
        if self.on_op:
            self.on_op(self, func, args, kwargs, (out, pre))
        if self.record_ops:
            self.timeline.append((self.nops, self.cur))
        return out

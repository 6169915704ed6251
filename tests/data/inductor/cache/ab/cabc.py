# AOT ID: ['0_inference']
from ctypes import c_void_p, c_long
import torch

# kernel path: /tmp/torchinductor_root/xy/cxy.py
# Topologically Sorted Source Nodes: [add, mul], Original ATen: [aten.add, aten.mul]
# Source node to ATen node mapping:
#   add => add
triton_poi_fused_add_mul_0 = async_compile.triton('triton_poi_fused_add_mul_0', '''
import triton
import triton.language as tl

@triton_heuristics.pointwise(
    size_hints=[1024], 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'out_ptr0': '*bf16', 'xnumel': 'i32'}, 'device': DeviceProperties(type='cuda')},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_add_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 1024
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/zz/czz.py
# Topologically Sorted Source Nodes: [sum_1], Original ATen: [aten.sum]
triton_red_fused_sum_1 = async_compile.triton('triton_red_fused_sum_1', '''
@triton_heuristics.reduction(
    size_hints=[64, 256],
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'rnumel': 'i32'}},
)
''', device_str='cuda')

triton_poi_b = async_compile.triton('b'
# Original ATen: [

triton_poi_n = async_compile.triton('n', '''
size_hints=[-024, 1_0]
triton_meta={'signature': {0: '*fp32'}}
''', device_str='cuda')

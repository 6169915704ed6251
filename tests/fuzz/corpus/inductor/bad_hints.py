triton_poi_a = async_compile.triton('a', '''
size_hints=[s0]
''', device_str='cuda')

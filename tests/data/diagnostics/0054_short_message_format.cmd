infer
--message-format
short
0001_chain_attributes_size_to_src.ein

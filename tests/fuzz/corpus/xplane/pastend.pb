
/device:GPU:0
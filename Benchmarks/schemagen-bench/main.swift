import BenchModels
print("bench")

// The native metric without Node, for callgrind (dump-pair.ts writes its input and says how to build and
// run it): reads one opaque pair, scores it `runs` times (default 1), prints the per-scale statistics.
// `harness pair.bin runs prepared`: prepares the reference once (metric.h Reference) and scores the
// distorted image against it `runs` times; `prepared 0` prepares it only (the preparation's own cost).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "metric.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: harness pair.bin [runs]\n");
    return 2;
  }
  std::FILE* file = std::fopen(argv[1], "rb");
  double header[3];
  if (file == nullptr || std::fread(header, sizeof(double), 3, file) != 3) return 1;
  std::vector<double> constants(static_cast<size_t>(header[2]));
  std::vector<float> linear(256);
  const size_t width = static_cast<size_t>(header[0]);
  const size_t height = static_cast<size_t>(header[1]);
  std::vector<uint8_t> reference(width * height * 3), distorted(width * height * 3);
  if (constants.size() != ssimulacra2::kBlurConstantCount ||
      std::fread(constants.data(), sizeof(double), constants.size(), file) != constants.size() ||
      std::fread(linear.data(), sizeof(float), 256, file) != 256 ||
      std::fread(reference.data(), 1, reference.size(), file) != reference.size() ||
      std::fread(distorted.data(), 1, distorted.size(), file) != distorted.size())
    return 1;
  std::fclose(file);
  const ssimulacra2::Image a{reference.data(), 3, linear.data()};
  const ssimulacra2::Image b{distorted.data(), 3, linear.data()};
  const ssimulacra2::BlurConstants blur = ssimulacra2::BlurConstantsFrom(constants.data());
  const int runs = argc > 2 ? std::atoi(argv[2]) : 1;
  const bool prepared = argc > 3 && std::string(argv[3]) == "prepared";
  std::vector<double> stats;
  if (prepared) {
    const ssimulacra2::Reference handle(a, width, height, blur);
    for (int i = 0; i < runs; i++) stats = handle.StatsAgainst(b);
  } else {
    for (int i = 0; i < runs; i++) stats = ssimulacra2::ScaleStats(a, b, width, height, blur);
  }
  for (size_t i = 0; i < stats.size(); i++) std::printf("%.17g%c", stats[i], i % 18 == 17 ? '\n' : ' ');
  return 0;
}

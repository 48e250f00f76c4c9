# Sourced by the A/B scripts here, from the repository root with $out set: builds rtdg on the GPU
# machine (Release, no tests, Gmsh and VTK off, toml++ from .deps/usr/include) into $build, and
# sets $mesh (the carried 200k-tet sphere) and the cache and tuning database the sweeps use. A
# build directory that scripts/gpu-dg configured already is reused as it is (only rtdg is built).
build=${RTDG_GPU_BUILD_DIR:-build-gpu}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRTDG_WARNINGS_AS_ERRORS=ON \
  -DRTDG_BUILD_BENCHMARKS=OFF -DRTDG_BUILD_TESTS=OFF -DRTDG_WITH_GMSH=OFF -DRTDG_WITH_VTK=OFF \
  -DRTDG_EXTRA_INCLUDE_DIRS="$PWD/.deps/usr/include" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target rtdg >> "$out/build.log" 2>&1 || { grep error -A5 "$out/build.log" | head -40; exit 1; }
mesh=$PWD/.deps/meshes/sphere_200k.h5
export RTDG_CACHE_DIR=$PWD/$build/gpu-cache RTDG_TUNING_DB=$out/tuning.json

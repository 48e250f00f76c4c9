"""SourceModule, kernels, the elementwise and reduction generators and the tuner on the host
backend, checked against numpy."""

import numpy as np
import pytest

import rtdg

SCALE = r"""
RTCG_KERNEL(scale)(double* RTCG_RESTRICT y, const double* RTCG_RESTRICT x, double a, long long n) {
  RTCG_GLOBAL_LOOP(i, n) { y[i] = a * x[i]; }
}
"""


def test_help_shows_signatures():
    assert "source: str" in rtdg.SourceModule.__doc__
    assert "t: float" in rtdg.Solver.advance.__doc__


def test_source_module_launch(host):
    mod = rtdg.SourceModule(SCALE, backend=host, name="scale_test")
    assert "scale" in mod.kernel_names
    scale = mod.get_function("scale")
    assert scale.parameters == ["double* RTCG_RESTRICT y", "const double* RTCG_RESTRICT x", "double a", "long long n"]
    x = rtdg.to_device(np.linspace(0, 1, 11), backend=host)
    y = rtdg.zeros(11, backend=host)
    scale(y, x, 3.0, 11, grid=(1,), block=(1,))
    np.testing.assert_allclose(y.get(), 3.0 * np.linspace(0, 1, 11), rtol=0, atol=0)
    # Integers convert to the declared double; numpy scalars too.
    scale(y, x, 2, np.int64(11), grid=1, block=1)
    np.testing.assert_array_equal(y.get(), 2.0 * np.linspace(0, 1, 11))


def test_arguments_are_checked_against_the_declaration(host):
    scale = rtdg.SourceModule(SCALE, backend=host, name="scale_test").get_function("scale")
    x = rtdg.to_device(np.ones(4), backend=host)
    y = rtdg.zeros(4, backend=host)
    with pytest.raises(rtdg.LaunchError, match=r"a floating-point value was passed for an integer"):
        scale(y, x, 1.0, 4.0)
    with pytest.raises(rtdg.LaunchError, match=r"an array of float was passed for double"):
        scale(rtdg.zeros(4, "float32", backend=host), x, 1.0, 4)
    with pytest.raises(rtdg.LaunchError, match=r"missing `long long n`"):
        scale(y, x, 1.0)
    with pytest.raises(rtdg.LaunchError, match=r"a number was passed for a pointer"):
        scale(1.0, x, 1.0, 4)
    with pytest.raises(TypeError, match="not str"):
        scale(y, x, "2", 4)


def test_compile_errors_carry_the_log_and_the_line(host):
    bad = "RTCG_KERNEL(broken)(double* y) {\n  y[0] = undeclared_name;\n}\n"
    with pytest.raises(rtdg.CompileError) as info:
        rtdg.SourceModule(bad, backend=host, name="broken")
    assert "undeclared_name" in str(info.value) and "undeclared_name" in info.value.log
    assert "broken" in info.value.source
    assert isinstance(info.value, rtdg.Error) and isinstance(info.value, RuntimeError)


def test_unknown_kernel_lists_the_modules_kernels(host):
    mod = rtdg.SourceModule(SCALE, backend=host, name="scale_test")
    with pytest.raises(rtdg.Error, match="scale"):
        mod.get_function("no_such_kernel")


def test_baked_constant(host):
    # The PyCUDA paper's first example: a constant written into the source, compiled for it.
    template = "RTCG_KERNEL(scale_by)(float* y, long long n) { RTCG_GLOBAL_LOOP(i, n) { y[i] *= FACTOR; } }"
    for factor in (2, 5):
        k = rtdg.SourceModule(template.replace("FACTOR", f"{factor}.0f"), backend=host).get_function("scale_by")
        y = rtdg.to_device(np.arange(5, dtype=np.float32), backend=host)
        k(y, 5)
        np.testing.assert_array_equal(y.get(), factor * np.arange(5, dtype=np.float32))


def test_elementwise_linear_combination(host):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(1000), rng.standard_normal(1000)
    lin = rtdg.ElementwiseKernel("double a, const double* x, double b, const double* y, double* z",
                                 "z[i] = a*x[i] + b*y[i]", name="lin_comb", backend=host)
    z = rtdg.empty(1000, backend=host)
    lin(5.0, rtdg.to_device(x, backend=host), 6.0, rtdg.to_device(y, backend=host), z)
    np.testing.assert_allclose(z.get(), 5 * x + 6 * y, rtol=1e-15, atol=1e-15)
    assert "lin_comb" in lin.source
    with pytest.raises(rtdg.LaunchError, match="same size"):
        lin(1.0, rtdg.zeros(3, backend=host), 1.0, rtdg.zeros(4, backend=host), rtdg.zeros(3, backend=host))
    # An explicit n covers a prefix.
    z.fill(0)
    lin(1.0, rtdg.to_device(x, backend=host), 0.0, rtdg.to_device(y, backend=host), z, n=10)
    np.testing.assert_array_equal(z.get()[:10], x[:10])
    assert not z.get()[10:].any()


def test_elementwise_argument_list_errors(host):
    with pytest.raises(rtdg.Error, match="i"):
        rtdg.ElementwiseKernel("double* i", "i[0] = 0", backend=host)


def test_dot_reduction_matches_numpy_and_is_deterministic(host):
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(100_003), rng.standard_normal(100_003)
    dot = rtdg.ReductionKernel("float64", neutral="0", reduce_expr="a + b", map_expr="x[i] * y[i]",
                               arguments="const double* x, const double* y", name="dot", backend=host)
    dx, dy = rtdg.to_device(x, backend=host), rtdg.to_device(y, backend=host)
    value = dot(dx, dy)
    assert isinstance(value, float)
    assert abs(value - float(np.dot(x, y))) < 1e-10 * np.abs(x * y).sum()
    assert all(dot(dx, dy) == value for _ in range(3))  # the same bits every time
    out = rtdg.zeros(1, backend=host)
    assert dot(dx, dy, out=out) is out
    assert out.get()[0] == value
    largest = rtdg.ReductionKernel("int32", "-2147483647", "a > b ? a : b", "v[i]", "const int* v", backend=host)
    assert largest(rtdg.to_device(np.array([3, -9, 41, 7], dtype=np.int32), backend=host)) == 41


def test_tuner_with_python_variants(host):
    n = 1 << 16
    x = rtdg.to_device(np.arange(n, dtype=np.float64), backend=host)
    y = rtdg.zeros(n, backend=host)
    generated = []

    def generate(point):
        unroll = point["unroll"]
        generated.append(unroll)
        if unroll == 8:
            return None  # pruned
        body = "\n".join(f"    y[j + {u}] = 2.0 * x[j + {u}];" for u in range(unroll))
        source = (f"RTCG_KERNEL(twice)(double* y, const double* x, long long n) {{\n"
                  f"  RTCG_GLOBAL_LOOP(b, n / {unroll}) {{\n    long long j = b * {unroll};\n{body}\n  }}\n}}\n")
        if unroll == 4:
            source = source.replace("2.0 *", "3.0 *")  # a wrong variant, which the check drops

        def run(module):
            module.get_function("twice")(y, x, n, grid=1, block=1)

        return rtdg.Variant(source, run, launches=[("twice", 1, 1, 0)], name=f"twice_u{unroll}")

    def check():
        got = y.get()
        return None if np.array_equal(got, 2.0 * np.arange(n)) else f"y differs by {np.abs(got - 2 * np.arange(n)).max()}"

    result = rtdg.tune("python_twice", {"unroll": [1, 2, 4, 8]}, generate, default={"unroll": 1},
                       check=check, reset=lambda: y.fill(0), backend=host, min_runs=3, max_runs=5)
    status = {v["point"]["unroll"]: v["status"] for v in result.variants}
    assert status == {1: "ok", 2: "ok", 4: "check", 8: "pruned"}
    assert result.winner["unroll"] in (1, 2)
    assert result.best["median_ms"] > 0
    assert "twice" in result.table or "python_twice" in result.table
    assert set(generated) == {1, 2, 4, 8}

"""Device arrays on the host backend: numpy round trips and zero-copy DLPack both ways."""

import numpy as np
import pytest

import rtdg


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_round_trip_keeps_values_shape_and_dtype(host, dtype):
    values = (np.arange(24).reshape(2, 3, 4) * 3 - 7).astype(dtype)
    a = rtdg.to_device(values, backend=host)
    assert a.shape == (2, 3, 4) and a.dtype == np.dtype(dtype) and a.size == 24 and a.nbytes == values.nbytes
    back = a.get()
    assert back.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(back, values)


def test_set_fill_copy_reshape(host):
    a = rtdg.empty((3, 2), "float32", backend=host)
    a.set(np.array([[1, 2], [3, 4], [5, 6]]))
    np.testing.assert_array_equal(a.get(), [[1, 2], [3, 4], [5, 6]])
    b = a.copy()
    a.fill(2.5)
    np.testing.assert_array_equal(a.get(), np.full((3, 2), 2.5))
    np.testing.assert_array_equal(b.get(), [[1, 2], [3, 4], [5, 6]])
    r = b.reshape((6,))
    assert r.ptr == b.ptr and r.shape == (6,)
    with pytest.raises(ValueError, match="the array has 6"):
        b.reshape((4,))
    with pytest.raises(ValueError, match="has 6 elements, the values 2"):
        a.set([1.0, 2.0])
    z = rtdg.zeros(4, "int64", backend=host)
    np.testing.assert_array_equal(z.get(), [0, 0, 0, 0])


def test_unsupported_dtype_is_a_clear_error(host):
    with pytest.raises(TypeError, match="float32, float64, int32 or int64"):
        rtdg.to_device(np.zeros(3, dtype=np.float16), backend=host)
    with pytest.raises(TypeError, match="float32, float64, int32 or int64"):
        rtdg.empty(3, "uint8", backend=host)


def test_numpy_from_dlpack_is_zero_copy(host):
    a = rtdg.to_device(np.arange(6.0).reshape(2, 3), backend=host)
    assert a.__dlpack_device__() == (1, 0)
    view = np.from_dlpack(a)
    assert view.ctypes.data == a.ptr and view.shape == (2, 3)
    np.testing.assert_array_equal(view, np.arange(6.0).reshape(2, 3))
    a.fill(7.0)  # the same memory: numpy sees the change
    np.testing.assert_array_equal(view, np.full((2, 3), 7.0))
    expected = np.full((2, 3), 7.0)
    if view.flags.writeable:  # numpy before 2.1 marks every DLPack import read-only
        view[1, 2] = expected[1, 2] = -1.0
        np.testing.assert_array_equal(a.get(), expected)
    del a  # the view keeps the memory alive
    np.testing.assert_array_equal(view, expected)


def test_from_dlpack_of_numpy_is_zero_copy(host):
    values = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = rtdg.from_dlpack(values, backend=host)
    assert a.ptr == values.ctypes.data and a.shape == (3, 4) and a.dtype == np.int32
    a.fill(5)
    np.testing.assert_array_equal(values, np.full((3, 4), 5))
    # A kernel writes into the numpy array's memory.
    twice = rtdg.ElementwiseKernel("int* y", "y[i] = 2 * y[i]", backend=host)
    twice(a)
    np.testing.assert_array_equal(values, np.full((3, 4), 10))
    # numpy arrays pass straight to kernels on the host backend (through DLPack, no copy).
    twice(values)
    np.testing.assert_array_equal(values, np.full((3, 4), 20))


def test_from_dlpack_refuses_strided_tensors(host):
    values = np.arange(12.0).reshape(3, 4)[:, ::2]
    with pytest.raises(ValueError, match="not C-contiguous"):
        rtdg.from_dlpack(values, backend=host)


def test_read_only_arrays_stay_read_only(host):
    values = np.arange(4.0)
    values.flags.writeable = False
    try:
        a = rtdg.from_dlpack(values, backend=host)
    except BufferError:
        pytest.skip("this numpy does not export read-only arrays through DLPack")
    assert a.readonly
    with pytest.raises(ValueError, match="read-only"):
        a.fill(1.0)
    k = rtdg.ElementwiseKernel("double* y", "y[i] = 0", backend=host)
    with pytest.raises(rtdg.LaunchError, match="read-only array"):
        k(a)

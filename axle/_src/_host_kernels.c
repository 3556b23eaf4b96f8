/* Float32 reductions in XLA CPU's summation order (and max/min), XLA CPU's float32 tanh and the
   C library's sin, cos and tan that XLA calls, for axle's eager shortcuts (the elementwise
   functions: see tanh_element and sin_loop below).

   JAX runs an eager jnp.sum/mean/var/std as a compiled XLA program; axle answers small 1-D
   float32 cases on the host and must give that program's bits. NumPy cannot sum in XLA's order
   without several calls (padding, a windowed accumulate, a second level), which cost more than
   JAX's whole dispatch on 100 elements; these loops do it in one call. Where this module is not
   built, the NumPy versions in axle/_src/numpy/reductions.py answer vectors' sums, means, max
   and min with the same bits, and the other cases run the compiled program.

   XLA's order, measured against JAX 0.10.2 on CPU: up to 32 elements are summed left to right
   from +0.0; a longer vector (up to 4095 elements) is cut into windows of 32, padded with zeros
   evenly on both sides (the extra zero on the right), each window summed left to right from
   +0.0, and the window sums reduced the same way. jnp.var of 33 or more elements: the mean is
   the sum times the float32 reciprocal of the count; each centered value is squared and
   rounded; the squares are summed in the order above and divided by the count minus ddof.

   XLA flushes subnormal floats to zero; every reduction returns None where an operand, a
   partial sum or a result would be subnormal, and where the result is NaN (whose bits depend on
   XLA's operand order), so that the caller runs the compiled program instead. Built with
   -ffp-contract=off: a multiply and an add must round separately, as XLA's loops round them
   (tanh's fused multiply-adds are written out). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>

#define WINDOW 32
#define MAX_LENGTH 4095

static int is_subnormal(float v) { return v != 0.0f && fabsf(v) < FLT_MIN; }

/* Left to right from +0.0; 0 where a partial sum is subnormal. */
static int sum_run(const float *x, Py_ssize_t n, float *out) {
  float total = 0.0f;
  for (Py_ssize_t i = 0; i < n; i++) {
    total += x[i];
    if (is_subnormal(total)) return 0;
  }
  *out = total;
  return 1;
}

/* XLA's windowed order for 1 <= n <= MAX_LENGTH elements (at most 128 windows, whose sums are
   summed in windows again, at most 4 of them). */
static int xla_sum(const float *x, Py_ssize_t n, float *out) {
  if (n <= WINDOW) return sum_run(x, n, out);
  Py_ssize_t windows = (n + WINDOW - 1) / WINDOW;
  Py_ssize_t left = (windows * WINDOW - n) / 2;
  float sums[(MAX_LENGTH + WINDOW - 1) / WINDOW];
  Py_ssize_t start = -left; /* the first window starts inside the left padding */
  for (Py_ssize_t w = 0; w < windows; w++, start += WINDOW) {
    Py_ssize_t begin = start < 0 ? 0 : start;
    Py_ssize_t end = start + WINDOW > n ? n : start + WINDOW;
    /* the padding zeros add +0.0: they change nothing but a -0.0 sum, and the window starts
       at +0.0 anyway */
    if (!sum_run(x + begin, end - begin, &sums[w])) return 0;
  }
  return xla_sum(sums, windows, out);
}

static int is_float32(const Py_buffer *view) {
  return view->itemsize == 4 && view->format != NULL && view->format[0] == 'f'
         && view->format[1] == '\0';
}

/* A C-contiguous float32 vector's data, or 0 (with no error set) when ``object`` is not one. */
static int get_vector(PyObject *object, Py_buffer *view) {
  if (PyObject_GetBuffer(object, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
    PyErr_Clear();
    return 0;
  }
  if (view->ndim != 1 || !is_float32(view)) {
    PyBuffer_Release(view);
    return 0;
  }
  return 1;
}

static int has_subnormal_or_nan(const float *x, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; i++)
    if (is_subnormal(x[i]) || x[i] != x[i]) return 1;
  return 0;
}

/* A float32 result as a Python float, None where it is subnormal or NaN; zeros are +0.0 (XLA's
   accumulator starts there) unless ``signed_zero``. */
static PyObject *result(float value, int signed_zero) {
  if (value != value || is_subnormal(value)) Py_RETURN_NONE;
  if (value == 0.0f && !signed_zero) value = 0.0f;
  return PyFloat_FromDouble((double)value);
}

static PyObject *float32_sum(PyObject *self, PyObject *args) {
  PyObject *object;
  float scale = 1.0f, total;
  if (!PyArg_ParseTuple(args, "O|f", &object, &scale)) return NULL;
  Py_buffer view;
  if (!get_vector(object, &view)) Py_RETURN_NOTIMPLEMENTED; /* (e.g. a strided view) */
  const float *x = (const float *)view.buf;
  Py_ssize_t n = view.shape[0];
  int ok = n >= 1 && n <= MAX_LENGTH && !has_subnormal_or_nan(x, n) && xla_sum(x, n, &total);
  if (ok && n == 1) total = x[0]; /* (XLA reads one element as it is: -0.0 stays -0.0) */
  PyBuffer_Release(&view);
  if (!ok) Py_RETURN_NONE;
  return result(scale == 1.0f ? total : total * scale, n == 1);
}

static PyObject *float32_variance(PyObject *self, PyObject *args) {
  PyObject *object;
  float reciprocal, normalizer, total;
  int square_root;
  if (!PyArg_ParseTuple(args, "Offp", &object, &reciprocal, &normalizer, &square_root))
    return NULL;
  Py_buffer view;
  if (!get_vector(object, &view)) Py_RETURN_NONE;
  const float *x = (const float *)view.buf;
  Py_ssize_t n = view.shape[0];
  float squares[MAX_LENGTH];
  int ok = n > WINDOW && n <= MAX_LENGTH && !has_subnormal_or_nan(x, n) && xla_sum(x, n, &total);
  if (ok) {
    float mean = total * reciprocal;
    if (is_subnormal(mean)) ok = 0;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
      float centered = x[i] - mean;
      float square = centered * centered;
      if (is_subnormal(centered) || is_subnormal(square)) ok = 0;
      squares[i] = square;
    }
    ok = ok && xla_sum(squares, n, &total);
  }
  PyBuffer_Release(&view);
  if (!ok) Py_RETURN_NONE;
  float variance = total / normalizer;
  if (is_subnormal(variance)) Py_RETURN_NONE;
  return result(square_root ? sqrtf(variance) : variance, 0);
}

static PyObject *float32_extremum(PyObject *self, PyObject *args) {
  PyObject *object;
  int maximum;
  if (!PyArg_ParseTuple(args, "Op", &object, &maximum)) return NULL;
  Py_buffer view;
  if (!get_vector(object, &view)) Py_RETURN_NOTIMPLEMENTED; /* (e.g. a strided view) */
  const float *x = (const float *)view.buf;
  Py_ssize_t n = view.shape[0];
  int ok = n >= 1 && !has_subnormal_or_nan(x, n);
  float best = ok ? x[0] : 0.0f;
  for (Py_ssize_t i = 1; ok && i < n; i++)
    if (maximum ? x[i] > best : x[i] < best) best = x[i];
  PyBuffer_Release(&view);
  /* (a zero result may be -0.0 or +0.0 in XLA, which orders them: left to the program) */
  if (!ok || best == 0.0f) Py_RETURN_NONE;
  return PyFloat_FromDouble((double)best);
}

/* Matrices: XLA picks its loops by shape. Measured against JAX 0.10.2 on CPU over rows and
   columns from 2 to 1000 (tools/record_eager_sum_reference.py keeps a sample):
   - over rows (axis 0): with fewer than 4096 elements and at most 32 rows, each column left to
     right; from 4096 to 32768 elements and at most 256 rows, each column in groups of 4 rows
     summed left to right, 4 groups to a block of 16 rows, groups and blocks added in turn;
   - over columns (axis 1): with fewer than 4096 elements, each row as a vector (above); from
     4096 elements and at most 500 columns, each row in 16 lanes (element i in lane i % 16),
     a lane summing its elements of one window of 64 left to right, the windows' lane sums
     added in turn, and the 16 lane sums halved pairwise (lane i plus lane i + 8, ...).
   The caller checks the shape; ``tiled`` selects the second form. */

/* Whether no element is NaN or below 2**-103 in magnitude (zeros aside): every element is then
   a multiple of a power of two no smaller than 2**-126, and so is every partial sum, in any
   order: none is subnormal, and the loops below need not check them. */
static int summable(const float *x, Py_ssize_t n) {
  const float smallest = 0x1p-103f;
  int bad = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    float magnitude = fabsf(x[i]);
    bad |= (magnitude != magnitude) | ((magnitude != 0.0f) & (magnitude < smallest));
  }
  return !bad;
}

/* Over rows, each column on its own (the loops run along a row: independent columns, which the
   compiler may compute several at a time without changing any column's order). */
static void column_sums(const float *x, Py_ssize_t rows, Py_ssize_t cols, int tiled, float *out,
                        float *block) {
  if (!tiled) {
    for (Py_ssize_t c = 0; c < cols; c++) out[c] = x[c];
    for (Py_ssize_t r = 1; r < rows; r++)
      for (Py_ssize_t c = 0; c < cols; c++) out[c] += x[r * cols + c];
    return;
  }
  for (Py_ssize_t b = 0; b < rows; b += 16) {
    float *sums = b == 0 ? out : block; /* the first block is the running total itself */
    for (Py_ssize_t g = b; g < b + 16 && g < rows; g += 4) {
      const float *r0 = x + g * cols, *r1 = r0 + cols, *r2 = r1 + cols, *r3 = r2 + cols;
      Py_ssize_t in_group = rows - g < 4 ? rows - g : 4;
      if (in_group == 4 && g == b) {
        for (Py_ssize_t c = 0; c < cols; c++) sums[c] = ((r0[c] + r1[c]) + r2[c]) + r3[c];
      } else if (in_group == 4) {
        for (Py_ssize_t c = 0; c < cols; c++) sums[c] += ((r0[c] + r1[c]) + r2[c]) + r3[c];
      } else {
        for (Py_ssize_t c = 0; c < cols; c++) {
          float group = r0[c];
          for (Py_ssize_t k = 1; k < in_group; k++) group += r0[k * cols + c];
          sums[c] = g == b ? group : sums[c] + group;
        }
      }
    }
    if (b > 0)
      for (Py_ssize_t c = 0; c < cols; c++) out[c] += block[c];
  }
}

#define LANES 16
#define LANE_WINDOW 64

static float lane_sum(const float *x, Py_ssize_t n) {
  float lanes[LANES] = {0.0f};
  for (Py_ssize_t start = 0; start < n; start += LANE_WINDOW) {
    float window[LANES] = {0.0f};
    Py_ssize_t end = start + LANE_WINDOW < n ? start + LANE_WINDOW : n;
    Py_ssize_t i = start;
    for (; i + LANES <= end; i += LANES)
      for (int l = 0; l < LANES; l++) window[l] += x[i + l];
    for (int l = 0; i + l < end; l++) window[l] += x[i + l]; /* a partial vector */
    for (int l = 0; l < LANES; l++) lanes[l] = start == 0 ? window[l] : lanes[l] + window[l];
  }
  for (int width = LANES / 2; width >= 1; width /= 2)
    for (int l = 0; l < width; l++) lanes[l] += lanes[l + width];
  return lanes[0];
}

/* float32_matrix_sum(matrix, axis, tiled, scale, out): see the method table. */
static PyObject *float32_matrix_sum(PyObject *self, PyObject *args) {
  PyObject *object, *out_object;
  int axis, tiled;
  float scale;
  if (!PyArg_ParseTuple(args, "OipfO", &object, &axis, &tiled, &scale, &out_object)) return NULL;
  Py_buffer view, out_view;
  if (PyObject_GetBuffer(object, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  if (view.ndim != 2 || view.itemsize != 4 || view.format == NULL
      || !(view.format[0] == 'f' && view.format[1] == '\0')) {
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
  }
  if (PyObject_GetBuffer(out_object, &out_view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
    PyBuffer_Release(&view);
    return NULL;
  }
  const float *x = (const float *)view.buf;
  float *out = (float *)out_view.buf;
  Py_ssize_t rows = view.shape[0], cols = view.shape[1];
  Py_ssize_t count = axis == 0 ? cols : rows;
  int ok = rows > 0 && cols > 0 && out_view.len == count * 4 && summable(x, rows * cols);
  if (ok && axis == 0) {
    float *block = tiled ? PyMem_Malloc(cols * sizeof(float)) : NULL;
    if (tiled && block == NULL) {
      ok = 0;
    } else {
      column_sums(x, rows, cols, tiled, out, block);
      PyMem_Free(block);
    }
  } else if (ok) {
    for (Py_ssize_t r = 0; ok && r < rows; r++) {
      const float *row = x + r * cols;
      if (tiled)
        out[r] = lane_sum(row, cols);
      else
        ok = cols <= MAX_LENGTH && xla_sum(row, cols, &out[r]);
    }
  }
  for (Py_ssize_t i = 0; ok && i < count; i++) {
    float value = scale == 1.0f ? out[i] : out[i] * scale;
    if (value != value || is_subnormal(value)) ok = 0;
    if (value == 0.0f) value = 0.0f; /* (XLA's accumulators start at +0.0) */
    out[i] = value;
  }
  PyBuffer_Release(&out_view);
  PyBuffer_Release(&view);
  if (!ok) Py_RETURN_NONE;
  Py_RETURN_TRUE;
}

/* XLA CPU's float32 tanh (x86-64 with FMA), element for element: XLA's rational approximation
   (the odd numerator of degree 13 and even denominator of degree 6 that Eigen also uses, in
   Horner form with each step one fused multiply-add, which XLA's code contracts them into),
   the input clamped to +-7.99881172180175781 (the approximation is exactly 1 there), x itself
   below |x| < 0.0004, +-1 from |x| >= 20. Compared with the compiled program on all 2**32
   float32 inputs (NaN payloads and subnormals included): the same bits for every one. */
static inline float tanh_element(float x) {
  const float clamp = 7.99881172180175781f;
  float clamped = x > clamp ? clamp : x;
  clamped = clamped < -clamp ? -clamp : clamped;
  float square = clamped * clamped;
  float numerator = -2.76076847742355e-16f;
  numerator = fmaf(square, numerator, 2.00018790482477e-13f);
  numerator = fmaf(square, numerator, -8.60467152213735e-11f);
  numerator = fmaf(square, numerator, 5.12229709037114e-08f);
  numerator = fmaf(square, numerator, 1.48572235717979e-05f);
  numerator = fmaf(square, numerator, 6.37261928875436e-04f);
  numerator = fmaf(square, numerator, 4.89352455891786e-03f);
  numerator = clamped * numerator;
  float denominator = 1.19825839466702e-06f;
  denominator = fmaf(square, denominator, 1.18534705686654e-04f);
  denominator = fmaf(square, denominator, 2.26843463243900e-03f);
  denominator = fmaf(square, denominator, 4.89352518554385e-03f);
  float magnitude = fabsf(x);
  float value = magnitude < 0.0004f ? x : numerator / denominator;
  return magnitude >= 20.0f ? copysignf(1.0f, x) : value;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_TANH 1
#include <immintrin.h>

/* tanh_element on eight lanes (the same operations; min/max in the operand order that keeps a
   NaN input, as the comparisons above do), then the tail one by one. */
__attribute__((target("avx2,fma"))) static void tanh_loop(const float *x, float *out,
                                                          Py_ssize_t n) {
  const __m256 clamp = _mm256_set1_ps(7.99881172180175781f);
  const __m256 negative_clamp = _mm256_set1_ps(-7.99881172180175781f);
  const __m256 small = _mm256_set1_ps(0.0004f), large = _mm256_set1_ps(20.0f);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  Py_ssize_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 clamped = _mm256_max_ps(negative_clamp, _mm256_min_ps(clamp, v));
    __m256 square = _mm256_mul_ps(clamped, clamped);
    __m256 numerator = _mm256_set1_ps(-2.76076847742355e-16f);
    numerator = _mm256_fmadd_ps(square, numerator, _mm256_set1_ps(2.00018790482477e-13f));
    numerator = _mm256_fmadd_ps(square, numerator, _mm256_set1_ps(-8.60467152213735e-11f));
    numerator = _mm256_fmadd_ps(square, numerator, _mm256_set1_ps(5.12229709037114e-08f));
    numerator = _mm256_fmadd_ps(square, numerator, _mm256_set1_ps(1.48572235717979e-05f));
    numerator = _mm256_fmadd_ps(square, numerator, _mm256_set1_ps(6.37261928875436e-04f));
    numerator = _mm256_fmadd_ps(square, numerator, _mm256_set1_ps(4.89352455891786e-03f));
    numerator = _mm256_mul_ps(clamped, numerator);
    __m256 denominator = _mm256_set1_ps(1.19825839466702e-06f);
    denominator = _mm256_fmadd_ps(square, denominator, _mm256_set1_ps(1.18534705686654e-04f));
    denominator = _mm256_fmadd_ps(square, denominator, _mm256_set1_ps(2.26843463243900e-03f));
    denominator = _mm256_fmadd_ps(square, denominator, _mm256_set1_ps(4.89352518554385e-03f));
    __m256 magnitude = _mm256_andnot_ps(sign, v);
    __m256 value = _mm256_blendv_ps(_mm256_div_ps(numerator, denominator), v,
                                    _mm256_cmp_ps(magnitude, small, _CMP_LT_OQ));
    __m256 saturated = _mm256_or_ps(_mm256_and_ps(v, sign), one);
    value = _mm256_blendv_ps(value, saturated, _mm256_cmp_ps(magnitude, large, _CMP_GE_OQ));
    _mm256_storeu_ps(out + i, value);
  }
  for (; i < n; i++) out[i] = tanh_element(x[i]);
}

/* XLA contracts the multiply-adds only where the processor has FMA; elsewhere its bits differ
   and the program runs instead. */
static int tanh_available(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
#define HAVE_TANH 0
#endif

/* A C-contiguous float32 buffer of any shape (writable when asked), or 0 with TypeError set. */
static int get_float32(PyObject *object, Py_buffer *view, int writable) {
  if (PyObject_GetBuffer(object, view,
                         PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
    return 0;
  if (!is_float32(view)) {
    PyBuffer_Release(view);
    PyErr_SetString(PyExc_TypeError, "expected a C-contiguous float32 buffer");
    return 0;
  }
  return 1;
}

/* The value every element of ``view`` holds when it is one element broadcast (all strides 0,
   as jnp.ones and jnp.full make them), else 0. */
static int broadcast_scalar(const Py_buffer *view, float *value) {
  if (view->len == 0 || view->strides == NULL) return 0;
  for (int d = 0; d < view->ndim; d++)
    if (view->strides[d] != 0 && view->shape[d] > 1) return 0;
  *value = *(const float *)view->buf;
  return 1;
}

typedef void (*elementwise_loop)(const float *x, float *out, Py_ssize_t n);

/* ``loop`` applied to each element of ``source`` (a float32 buffer, C-contiguous or one element
   broadcast), written to ``destination`` (a C-contiguous float32 buffer of the same size). */
static PyObject *apply_elementwise(PyObject *args, elementwise_loop loop, const char *name) {
  PyObject *source, *destination;
  if (!PyArg_ParseTuple(args, "OO", &source, &destination)) return NULL;
  Py_buffer in, out;
  if (PyObject_GetBuffer(source, &in, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return NULL;
  if (!is_float32(&in)) {
    PyBuffer_Release(&in);
    PyErr_Format(PyExc_TypeError, "%s: the source is not float32", name);
    return NULL;
  }
  if (!get_float32(destination, &out, 1)) {
    PyBuffer_Release(&in);
    return NULL;
  }
  Py_ssize_t n = out.len / 4;
  float *result = (float *)out.buf;
  float scalar;
  int status = 0;
  if (in.len != out.len) {
    PyErr_Format(PyExc_ValueError, "%s: the buffers differ in size", name);
    status = -1;
  } else if (PyBuffer_IsContiguous(&in, 'C')) {
    if (n > 4096) {
      Py_BEGIN_ALLOW_THREADS
      loop((const float *)in.buf, result, n);
      Py_END_ALLOW_THREADS
    } else {
      loop((const float *)in.buf, result, n);
    }
  } else if (broadcast_scalar(&in, &scalar)) {
    loop(&scalar, &scalar, 1);
    for (Py_ssize_t i = 0; i < n; i++) result[i] = scalar;
  } else {
    PyErr_Format(PyExc_ValueError, "%s: the source is strided", name);
    status = -1;
  }
  PyBuffer_Release(&in);
  PyBuffer_Release(&out);
  if (status < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *float32_tanh(PyObject *self, PyObject *args) {
#if HAVE_TANH
  return apply_elementwise(args, tanh_loop, "float32_tanh");
#else
  PyErr_SetString(PyExc_NotImplementedError, "float32_tanh needs x86-64 with FMA");
  return NULL;
#endif
}

/* XLA CPU's float32 sin, cos and tan call the C library's sinf, cosf and tanf (jaxlib resolves
   them from the process's libm, the one this module links): the same functions, element by
   element, give its bits (compared on all 2**32 inputs, and on arrays of 1 to 4097 elements
   and of several shapes, with glibc 2.36 on x86-64; tools/check_float32_host_kernels.py
   compares them again). Not atan: on arrays of a few elements XLA computes it otherwise. */
static void sin_loop(const float *x, float *out, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; i++) out[i] = sinf(x[i]);
}
static void cos_loop(const float *x, float *out, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; i++) out[i] = cosf(x[i]);
}
static void tan_loop(const float *x, float *out, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; i++) out[i] = tanf(x[i]);
}

static PyObject *float32_sin(PyObject *self, PyObject *args) {
  return apply_elementwise(args, sin_loop, "float32_sin");
}
static PyObject *float32_cos(PyObject *self, PyObject *args) {
  return apply_elementwise(args, cos_loop, "float32_cos");
}
static PyObject *float32_tan(PyObject *self, PyObject *args) {
  return apply_elementwise(args, tan_loop, "float32_tan");
}

static PyObject *float32_libm_matches(PyObject *self, PyObject *unused) {
#if defined(__GLIBC__) && defined(__x86_64__)
  Py_RETURN_TRUE;
#else
  Py_RETURN_FALSE;
#endif
}

static PyObject *float32_tanh_available(PyObject *self, PyObject *unused) {
#if HAVE_TANH
  if (tanh_available()) Py_RETURN_TRUE;
#endif
  Py_RETURN_FALSE;
}

static PyMethodDef methods[] = {
    {"float32_sum", float32_sum, METH_VARARGS,
     "float32_sum(vector, scale=1.0): XLA's float32 sum of a C-contiguous float32 vector of 1 "
     "to 4095 elements, times the float32 ``scale``, as a Python float; None where XLA's bits "
     "are not known here (subnormals, NaN, other lengths); NotImplemented for an object that "
     "is not such a vector (a strided view: the caller's NumPy version answers)."},
    {"float32_variance", float32_variance, METH_VARARGS,
     "float32_variance(vector, reciprocal, normalizer, square_root): jnp.var (or jnp.std) of a "
     "float32 vector of 33 to 4095 elements as XLA computes it: the mean is the sum times "
     "``reciprocal`` (float32 1/n), the sum of squares is divided by ``normalizer`` (float32 "
     "n - ddof); None where XLA's bits are not known here."},
    {"float32_extremum", float32_extremum, METH_VARARGS,
     "float32_extremum(vector, maximum): the largest (or smallest) element of a C-contiguous "
     "float32 vector as a Python float; None where XLA's answer may differ (NaN, subnormals, a "
     "zero result); NotImplemented for an object that is not such a vector."},
    {"float32_matrix_sum", float32_matrix_sum, METH_VARARGS,
     "float32_matrix_sum(matrix, axis, tiled, scale, out): XLA's float32 sums of a C-contiguous "
     "float32 matrix over ``axis`` (0 or 1) in the loop form ``tiled`` selects (see the source), "
     "each times ``scale``, written to the float32 vector ``out``; True, or None where XLA's bits "
     "are not known here (subnormals, NaN, other arrays; ``out`` is then garbage)."},
    {"float32_tanh", float32_tanh, METH_VARARGS,
     "float32_tanh(source, out): XLA's float32 tanh of each element of the float32 buffer "
     "``source`` (C-contiguous, or one element broadcast), written to the C-contiguous float32 "
     "``out`` of the same size; ValueError for other strides. Only where "
     "float32_tanh_available()."},
    {"float32_sin", float32_sin, METH_VARARGS,
     "float32_sin(source, out): the C library's sinf of each element (as float32_tanh)."},
    {"float32_cos", float32_cos, METH_VARARGS,
     "float32_cos(source, out): the C library's cosf of each element (as float32_tanh)."},
    {"float32_tan", float32_tan, METH_VARARGS,
     "float32_tan(source, out): the C library's tanf of each element (as float32_tanh)."},
    {"float32_libm_matches", float32_libm_matches, METH_NOARGS,
     "float32_libm_matches(): whether float32_sin/cos/tan are known to give XLA's bits "
     "here (glibc on x86-64, where they were compared on every input)."},
    {"float32_tanh_available", float32_tanh_available, METH_NOARGS,
     "float32_tanh_available(): whether float32_tanh gives XLA's bits on this processor "
     "(x86-64 with AVX2 and FMA, whose fused multiply-adds XLA's code uses)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_host_kernels",
    "Float32 reductions in XLA CPU's order; its float32 tanh, sin, cos and tan.", -1, methods};

PyMODINIT_FUNC PyInit__host_kernels(void) { return PyModule_Create(&module); }

/*
 * synth_gen.c - the engine of tlmpi-synth: builds the per-step program of a
 * tensor- and data-parallel transformer training step (forward on the main
 * thread, autograd on a backward thread, optimizer, collectives) and runs it
 * for a set of ranks in lock-step, optionally writing each rank's Kineto
 * events.
 *
 * Why lock-step: a collective couples its participants (every member's NCCL
 * kernel ends at max(arrival) + C and the streams that wait on it move with
 * it), so in resolve mode all ranks advance op by op and, at a collective,
 * every rank first "arrives" (CPU side, arrival time), then each group
 * instance is resolved into the truth, then every rank "finishes" (GPU
 * side).  In replay mode the same program is run for one rank with the
 * collective end times read back from the truth; since every random draw
 * happens in the same order in both modes the rank recomputes the same
 * timeline, which is what lets traces be written one at a time in constant
 * memory after the whole-job timing is known.
 *
 * Events are written in completion order (a parent after its children);
 * timestamps are global ns + the rank's clock offset, printed as µs.
 */
#include "grow.h"
#include "synth_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* MARK: - random numbers (splitmix64 seeding, xoshiro256**) */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t res = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

/* Uniform in [lo, hi]. */
static int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* d scaled by a factor uniform in [1 - pm/1000, 1 + pm/1000]. */
static int64_t rng_vary(rng *r, int64_t d, int pm)
{
    int64_t f = rng_range(r, 1000 - pm, 1000 + pm);
    int64_t v = d / 1000 * f + (d % 1000) * f / 1000;
    return v < 1 ? 1 : v;
}

/* MARK: - the step program */

enum {
    OP_PY = 0,     /* python frame push (name) */
    OP_MOD,        /* nn.Module frame push (name, modid) */
    OP_ANN,        /* ProfilerStep#N user_annotation push */
    OP_CPU,        /* cpu_op push */
    OP_BWDFN,      /* autograd::engine::evaluate_function push (bwd) */
    OP_POP,        /* close the innermost open frame */
    OP_LAUNCH,     /* kernel launch on the compute stream */
    OP_MEMCPY,
    OP_MEMSET,
    OP_COLL,       /* one collective (whole event chain) */
    OP_BWD_BEGIN,  /* switch to the backward thread */
    OP_BWD_END,    /* main thread resumes after the backward thread */
    OP_WAIT,       /* compute stream waits on a pg kind's stream */
    OP_SYNC        /* CPU waits for all streams */
};

#define SYN_MAX_IN 4

typedef struct syn_in {
    const char *type;  /* "c10::BFloat16", "Scalar", "float", "" ... */
    const char *conc;  /* Concrete Inputs entry */
    int nd;            /* dims; -1 = TensorList of one [d] tensor */
    int64_t d[4];
} syn_in;

typedef struct syn_op {
    int kind;
    int ckind;         /* OP_COLL: SYN_C_*; OP_WAIT: SYN_PG_*; MEMCPY dir */
    int n_in;
    int ag;            /* OP_CPU: 1 = forward autograd op (new seq nr);
                          OP_BWDFN: local seq nr it refers to */
    int agl;           /* OP_CPU with ag: local autograd index */
    int ex;            /* OP_LAUNCH: 1 = cudaLaunchKernelExC */
    int modid;
    const char *name;
    syn_in in[SYN_MAX_IN];
    int64_t dur;       /* kernel ns; cpu op self ns */
    int64_t n;         /* memcpy/memset bytes; collective elements */
    int32_t grid[3];
    int32_t block[3];
    int32_t regs;
    int32_t smem;
    int pre;           /* OP_LAUNCH: the last GPU work before a blocking
                          collective (--straggler_cause slow_kernels) */
} syn_op;

typedef struct syn_prog {
    syn_op *ops;
    size_t n;
    size_t cap;
    int n_ag;          /* autograd ops per step */
    int n_mod;         /* modules */
    int n_lin;
    int n_ln;
    int fail;
} syn_prog;

static syn_op *prog_add(syn_prog *p, int kind, const char *name)
{
    if (tlm_grow((void **)&p->ops, &p->cap, p->n + 1, sizeof *p->ops, 256)) {
        p->fail = 1;
        return NULL;
    }
    syn_op *op = &p->ops[p->n++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->name = name;
    return op;
}

/* A pushed frame with no arguments. */
static void p_push(syn_prog *p, int kind, const char *name)
{
    syn_op *op = prog_add(p, kind, name);
    if (op && kind == OP_MOD)
        op->modid = p->n_mod++;
}

static void p_pop(syn_prog *p)
{
    prog_add(p, OP_POP, NULL);
}

static const char *const T_BF16 = "c10::BFloat16";
static const char *const T_F32 = "float";
static const char *const T_SCALAR = "Scalar";

static void in_tensor(syn_op *op, const char *type, int nd, int64_t a,
                      int64_t b, int64_t c)
{
    if (!op || op->n_in >= SYN_MAX_IN)
        return;
    syn_in *in = &op->in[op->n_in++];
    in->type = type;
    in->conc = "";
    in->nd = nd;
    in->d[0] = a;
    in->d[1] = b;
    in->d[2] = c;
}

static void in_scalar(syn_op *op, const char *conc)
{
    if (!op || op->n_in >= SYN_MAX_IN)
        return;
    syn_in *in = &op->in[op->n_in++];
    in->type = T_SCALAR;
    in->conc = conc;
    in->nd = 0;
}

/* cpu_op push; ag: forward autograd op. */
static syn_op *p_cpu(syn_prog *p, const char *name, int ag, int64_t self_ns)
{
    syn_op *op = prog_add(p, OP_CPU, name);
    if (!op)
        return NULL;
    op->dur = self_ns;
    if (ag) {
        op->ag = 1;
        op->agl = p->n_ag++;
    }
    return op;
}

static void p_launch(syn_prog *p, const char *kname, int64_t dur_ns,
                     int64_t grid, int block, int regs, int smem, int ex)
{
    syn_op *op = prog_add(p, OP_LAUNCH, kname);
    if (!op)
        return;
    op->dur = dur_ns < 1000 ? 1000 : dur_ns;
    op->grid[0] = (int32_t)(grid < 1 ? 1 : grid > 2147483647 ? 2147483647
                                                               : grid);
    op->grid[1] = 1;
    op->grid[2] = 1;
    op->block[0] = block;
    op->block[1] = 1;
    op->block[2] = 1;
    op->regs = regs;
    op->smem = smem;
    op->ex = ex;
}

/* Kernel names as CUPTI reports them on an H100 (PyTorch 2.x, cuBLAS 12). */
static const char K_GEMM_TN[] =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_"
    "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
static const char K_GEMM_NN[] =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_"
    "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";
static const char K_GEMM_NT[] =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_"
    "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";
static const char K_ADD[] =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >"
    "(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul>)";
static const char K_MUL[] =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::binary_internal::MulFunctor<float>, "
    "std::array<char*, 3ul> >(int, "
    "at::native::binary_internal::MulFunctor<float>, "
    "std::array<char*, 3ul>)";
static const char K_GELU[] =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::"
    "{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, "
    "std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl("
    "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::"
    "operator()() const::{lambda()#4}::operator()() const::"
    "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)";
static const char K_GELU_BWD[] =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::"
    "{lambda()#4}::operator()() const::"
    "{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >"
    "(int, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::"
    "{lambda()#4}::operator()() const::"
    "{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)";
static const char K_COPY[] =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda(float)#1}, std::array<char*, 2ul> >(int, "
    "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda(float)#1}, std::array<char*, 2ul>)";
static const char K_LN[] =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel"
    "<c10::BFloat16, float>(int, float, c10::BFloat16 const*, "
    "c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, "
    "c10::BFloat16*)";
static const char K_LN_BWD[] =
    "void at::native::(anonymous namespace)::"
    "layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>("
    "c10::BFloat16 const*, c10::BFloat16 const*, float const*, "
    "float const*, c10::BFloat16 const*, c10::BFloat16*, int)";
static const char K_FLASH_FWD[] =
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::"
    "Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, "
    "4, cutlass::bfloat16_t> >, false, true, false, false, true, true, "
    "false, false>(pytorch_flash::Flash_fwd_params)";
static const char K_FLASH_BWD[] =
    "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<"
    "pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, "
    "false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits"
    "<128, 64, 128, 8, cutlass::bfloat16_t> >, false, true, false, false, "
    "true, true, false>(pytorch_flash::Flash_bwd_params)";
static const char K_SOFTMAX[] =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, "
    "float, float, at::native::(anonymous namespace)::"
    "SoftMaxForwardEpilogue>(float*, float const*, int)";
static const char K_EMB[] =
    "void at::native::(anonymous namespace)::indexSelectLargeIndex<"
    "c10::BFloat16, long, unsigned int, 2, 2, -2, true>("
    "at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
    "at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
    "at::cuda::detail::TensorInfo<long, unsigned int>, int, int, "
    "unsigned int, unsigned int, long)";
static const char K_EMB_BWD[] =
    "void at::native::(anonymous namespace)::embedding_backward_feature_"
    "kernel<c10::BFloat16, float, long>(long const*, c10::BFloat16 const*, "
    "c10::BFloat16*, int, long, int, int)";
static const char K_MTA_MUL[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::TensorListMetadata<1>, "
    "at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, "
    "0>, std::multiplies<float>, float>(at::native::(anonymous namespace)::"
    "TensorListMetadata<1>, at::native::(anonymous namespace)::"
    "BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float)";
static const char K_MTA_ADD[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::TensorListMetadata<2>, "
    "at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, "
    "2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::"
    "TensorListMetadata<2>, at::native::(anonymous namespace)::"
    "BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)";
static const char K_MTA_ADDCMUL[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::TensorListMetadata<3>, "
    "at::native::(anonymous namespace)::PointwiseOpScalarFunctor<float, 3, "
    "3, 0>, std::multiplies<float>, float>(at::native::(anonymous "
    "namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::"
    "PointwiseOpScalarFunctor<float, 3, 3, 0>, std::multiplies<float>, "
    "float)";
static const char K_MTA_SQRT[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::TensorListMetadata<2>, "
    "at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, "
    "at::native::Sqrt<float> >(at::native::(anonymous namespace)::"
    "TensorListMetadata<2>, at::native::(anonymous namespace)::"
    "UnaryOpFunctor<float, 2, 1, 1>, at::native::Sqrt<float>)";

/* Model timing constants: 400 TFLOP/s dense bf16, 2.5 TB/s HBM. */
static int64_t gemm_ns(int64_t m, int64_t n, int64_t k)
{
    return 2 * m * n * k / 400000;
}

static int64_t mem_ns(int64_t bytes)
{
    return bytes * 2 / 5000;
}

/* aten::linear(x[m,k], w[n,k], bias?) -> aten::t + aten::addmm / aten::mm
 * and its gemm.  Returns the local autograd index of the addmm / mm. */
static int p_linear(syn_prog *p, const char *modname, int64_t m, int64_t k,
                    int64_t n, int bias)
{
    p_push(p, OP_MOD, modname);
    syn_op *op = p_cpu(p, "aten::linear", 0, 3000);
    in_tensor(op, T_BF16, 2, m, k, 0);
    in_tensor(op, T_BF16, 2, n, k, 0);
    if (bias)
        in_tensor(op, T_BF16, 1, n, 0, 0);
    else
        in_tensor(op, "", 0, 0, 0, 0);
    op = p_cpu(p, "aten::t", 1, 1500);
    in_tensor(op, T_BF16, 2, n, k, 0);
    op = p_cpu(p, "aten::transpose", 0, 1200);
    in_tensor(op, T_BF16, 2, n, k, 0);
    in_scalar(op, "0");
    in_scalar(op, "1");
    p_pop(p);
    p_pop(p);
    int idx;
    if (bias) {
        op = p_cpu(p, "aten::addmm", 1, 6000);
        in_tensor(op, T_BF16, 1, n, 0, 0);
        in_tensor(op, T_BF16, 2, m, k, 0);
        in_tensor(op, T_BF16, 2, k, n, 0);
        in_scalar(op, "1");
    } else {
        op = p_cpu(p, "aten::mm", 1, 5000);
        in_tensor(op, T_BF16, 2, m, k, 0);
        in_tensor(op, T_BF16, 2, k, n, 0);
    }
    idx = op ? op->agl : 0;
    p_launch(p, K_GEMM_TN, gemm_ns(m, n, k), (m / 128) * (n / 128 + 1) / 4,
             384, 168, 213248, 1);
    p_pop(p);
    p_pop(p);
    p_pop(p);
    return idx;
}

/* An elementwise op on n bf16 elements with one kernel. */
static int p_elem(syn_prog *p, const char *name, const char *kname,
                  int64_t rows, int64_t cols, int binary)
{
    syn_op *op = p_cpu(p, name, 1, 4000);
    in_tensor(op, T_BF16, 2, rows, cols, 0);
    if (binary) {
        in_tensor(op, T_BF16, 2, rows, cols, 0);
        in_scalar(op, "1");
    }
    int idx = op ? op->agl : 0;
    int64_t n = rows * cols;
    p_launch(p, kname, mem_ns(n * 2 * (binary ? 3 : 2)), n / 512 + 1, 128,
             16, 0, 0);
    p_pop(p);
    return idx;
}

static int p_layer_norm(syn_prog *p, int64_t m, int64_t h)
{
    syn_op *op = p_cpu(p, "aten::layer_norm", 0, 3000);
    in_tensor(op, T_BF16, 2, m, h, 0);
    in_tensor(op, "", 1, h, 0, 0);
    in_tensor(op, T_BF16, 1, h, 0, 0);
    in_tensor(op, T_BF16, 1, h, 0, 0);
    op = p_cpu(p, "aten::native_layer_norm", 1, 5000);
    in_tensor(op, T_BF16, 2, m, h, 0);
    in_tensor(op, "", 1, h, 0, 0);
    in_tensor(op, T_BF16, 1, h, 0, 0);
    in_scalar(op, "1e-05");
    int idx = op ? op->agl : 0;
    p_launch(p, K_LN, mem_ns(m * h * 4), m, 128, 40, 0, 0);
    p_pop(p);
    p_pop(p);
    return idx;
}

static void p_coll(syn_prog *p, int ckind, int64_t nelems)
{
    syn_op *op = prog_add(p, OP_COLL, NULL);
    if (op) {
        op->ckind = ckind;
        op->n = nelems;
    }
}

/* Backward function frame with its cpu op and optional kernels. */
static void p_bwdfn(syn_prog *p, const char *evalname, const char *fn,
                    int ref)
{
    syn_op *op = prog_add(p, OP_BWDFN, evalname);
    if (op)
        op->ag = ref;
    op = prog_add(p, OP_BWDFN, fn);
    if (op)
        op->ag = ref;
}

static void p_bwd_gemm(syn_prog *p, const char *opname, int64_t m, int64_t n,
                       int64_t k, const char *kname)
{
    syn_op *op = p_cpu(p, opname, 0, 5000);
    in_tensor(op, T_BF16, 2, m, k, 0);
    in_tensor(op, T_BF16, 2, k, n, 0);
    p_launch(p, kname, gemm_ns(m, n, k), (m / 128) * (n / 128 + 1) / 4, 384,
             168, 213248, 1);
    p_pop(p);
}

static void p_bwd_kernel_op(syn_prog *p, const char *opname,
                            const char *kname, int64_t rows, int64_t cols,
                            int64_t dur, int ex)
{
    syn_op *op = p_cpu(p, opname, 0, 5000);
    in_tensor(op, T_BF16, 2, rows, cols, 0);
    in_tensor(op, T_BF16, 2, rows, cols, 0);
    p_launch(p, kname, dur, rows / 4 + 1, 256, 64, ex ? 98304 : 0, ex);
    p_pop(p);
}

/* Names built at run time ("nn.Module: Linear_3") live in the program. */
typedef struct syn_names {
    char **v;
    size_t n;
    size_t cap;
} syn_names;

static const char *name_of(syn_prog *p, syn_names *nm, const char *prefix,
                           int idx)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%s_%d", prefix, idx);
    if (tlm_grow((void **)&nm->v, &nm->cap, nm->n + 1, sizeof *nm->v, 64)) {
        p->fail = 1;
        return "";
    }
    size_t len = strlen(buf);
    char *s = malloc(len + 1);
    if (!s) {
        p->fail = 1;
        return "";
    }
    memcpy(s, buf, len + 1);
    nm->v[nm->n++] = s;
    return s;
}

static void names_free(syn_names *nm)
{
    for (size_t i = 0; i < nm->n; i++)
        free(nm->v[i]);
    free(nm->v);
    memset(nm, 0, sizeof *nm);
}

/* Per-layer forward autograd indices referenced by the backward pass. */
enum { AG_LN1, AG_QKV, AG_SDPA, AG_PROJ, AG_ADD1, AG_LN2, AG_FC1, AG_GELU,
       AG_FC2, AG_ADD2, AG_PER_LAYER };

/* Sizes of one training step and the forward autograd indices that the
 * backward pass refers to, shared by the phases of build_program. */
typedef struct step_dims {
    const tlm_synth_opts *o;
    int64_t T;            /* tokens per step */
    int64_t H, Ht, Ft, Vt; /* hidden; per TP rank: hidden, MLP, vocab */
    int64_t hd, heads_t;  /* head dim, heads per TP rank */
    int64_t layer_params; /* parameters per layer per TP rank */
    int L;
    int has_tp, has_dp, has_world;
    int n_lin, n_ln;      /* Linear / LayerNorm modules so far */
    int *ag;              /* per layer: AG_PER_LAYER indices */
    int ag_emb, ag_lnf, ag_head, ag_sm;
} step_dims;

#define EVAL_FN "autograd::engine::evaluate_function: "

/* n attention inputs [batch * heads, seq, head dim] of op. */
static void attn_inputs(syn_op *op, const step_dims *sd, int n)
{
    for (int i = 0; i < n; i++)
        in_tensor(op, T_BF16, 3, sd->o->batch * sd->heads_t, sd->o->seq_len,
                  sd->hd);
}

/* The input batch [batch, seq] of token ids as input of op. */
static void batch_input(syn_op *op, const step_dims *sd)
{
    in_tensor(op, "long int", 2, sd->o->batch, sd->o->seq_len, 0);
}

/* A Linear module of the next index; returns its gemm's autograd index. */
static int linear_mod(syn_prog *p, syn_names *nm, step_dims *sd, int64_t k,
                      int64_t n, int bias)
{
    return p_linear(p, name_of(p, nm, "nn.Module: Linear", sd->n_lin++),
                    sd->T, k, n, bias);
}

/* A LayerNorm module of the next index; returns its autograd index. */
static int layer_norm_mod(syn_prog *p, syn_names *nm, step_dims *sd)
{
    p_push(p, OP_MOD, name_of(p, nm, "nn.Module: LayerNorm", sd->n_ln++));
    int idx = p_layer_norm(p, sd->T, sd->H);
    p_pop(p);
    return idx;
}

/* A python frame holding one collective. */
static void py_coll(syn_prog *p, const char *frame, int ckind, int64_t n)
{
    p_push(p, OP_PY, frame);
    p_coll(p, ckind, n);
    p_pop(p);
}

/* The input batch copied to the GPU (and the step broadcast). */
static void build_input(syn_prog *p, const step_dims *sd)
{
    syn_op *op = p_cpu(p, "aten::to", 0, 2000);
    batch_input(op, sd);
    in_scalar(op, "");
    op = p_cpu(p, "aten::_to_copy", 0, 2000);
    batch_input(op, sd);
    op = p_cpu(p, "aten::copy_", 0, 3000);
    batch_input(op, sd);
    batch_input(op, sd);
    in_scalar(op, "True");
    op = prog_add(p, OP_MEMCPY, "Memcpy HtoD (Pinned -> Device)");
    if (op) {
        op->n = sd->T * 8;
        op->ckind = 1;
    }
    p_pop(p);
    p_pop(p);
    p_pop(p);
    if (sd->has_world)
        py_coll(p, "train.py(104): broadcast_step", SYN_C_BCAST, 1);
}

/* Self-attention of layer l: QKV projection, flash attention, output
 * projection and its TP all-reduce. */
static void fwd_attention(syn_prog *p, syn_names *nm, step_dims *sd, int l,
                          int *a)
{
    const tlm_synth_opts *o = sd->o;
    p_push(p, OP_MOD, name_of(p, nm, "nn.Module: SelfAttention", l));
    a[AG_QKV] = linear_mod(p, nm, sd, sd->H, 3 * sd->Ht, 1);
    p_push(p, OP_MOD, name_of(p, nm, "nn.Module: CoreAttention", l));
    syn_op *op = p_cpu(p, "aten::scaled_dot_product_attention", 0, 4000);
    attn_inputs(op, sd, 3);
    op = p_cpu(p, "aten::_scaled_dot_product_flash_attention", 1, 4000);
    attn_inputs(op, sd, 3);
    in_scalar(op, "0.");
    a[AG_SDPA] = op ? op->agl : 0;
    op = p_cpu(p, "aten::_flash_attention_forward", 0, 8000);
    attn_inputs(op, sd, 3);
    in_scalar(op, "True");
    p_launch(p, K_FLASH_FWD,
             4 * o->batch * sd->heads_t * (int64_t)o->seq_len * o->seq_len *
                 sd->hd / 2 / 300000,
             o->batch * sd->heads_t * (o->seq_len / 128), 128, 255, 49152,
             1);
    p_pop(p);
    p_pop(p);
    p_pop(p);
    p_pop(p);
    a[AG_PROJ] = linear_mod(p, nm, sd, sd->Ht, sd->H, 0);
    if (sd->has_tp)
        p_coll(p, SYN_C_TP_AR, sd->T * sd->H);
    p_pop(p);
}

/* A small mixture-of-experts block: tokens to the experts of the DP group
 * and back, expert gemms batched (aten::bmm). */
static void fwd_experts(syn_prog *p, const step_dims *sd)
{
    int64_t T = sd->T, H = sd->H, Ht = sd->Ht;
    p_push(p, OP_MOD, "nn.Module: ExpertDispatch_0");
    if (sd->has_dp)
        p_coll(p, SYN_C_A2A, T * H / 4);
    syn_op *op = p_cpu(p, "aten::bmm", 1, 5000);
    in_tensor(op, T_BF16, 3, 8, (T + 7) / 8, H);
    in_tensor(op, T_BF16, 3, 8, H, Ht);
    p_launch(p, K_GEMM_NN, gemm_ns(T, Ht, H), (T / 128 + 1) * 8, 384, 168,
             213248, 1);
    p_pop(p);
    if (sd->has_dp)
        p_coll(p, SYN_C_A2AV, 0);
    p_pop(p);
}

/* Transformer layer l forward (experts in layer 0 only). */
static void fwd_layer(syn_prog *p, syn_names *nm, step_dims *sd, int l)
{
    int *a = &sd->ag[l * AG_PER_LAYER];
    p_push(p, OP_MOD, name_of(p, nm, "nn.Module: TransformerLayer", l));
    a[AG_LN1] = layer_norm_mod(p, nm, sd);
    fwd_attention(p, nm, sd, l, a);
    a[AG_ADD1] = p_elem(p, "aten::add", K_ADD, sd->T, sd->H, 1);
    a[AG_LN2] = layer_norm_mod(p, nm, sd);
    if (l == 0)
        fwd_experts(p, sd);
    p_push(p, OP_MOD, name_of(p, nm, "nn.Module: MLP", l));
    a[AG_FC1] = linear_mod(p, nm, sd, sd->H, sd->Ft, 1);
    a[AG_GELU] = p_elem(p, "aten::gelu", K_GELU, sd->T, sd->Ft, 0);
    a[AG_FC2] = linear_mod(p, nm, sd, sd->Ft, sd->H, 0);
    if (sd->has_tp)
        p_coll(p, SYN_C_TP_AR, sd->T * sd->H);
    p_pop(p);
    a[AG_ADD2] = p_elem(p, "aten::add", K_ADD, sd->T, sd->H, 1);
    p_pop(p);
}

/* The forward step: embedding, layers, final norm, LM head, softmax and
 * the scaled loss; then the loss all-reduce. */
static void build_forward(syn_prog *p, syn_names *nm, step_dims *sd)
{
    int64_t T = sd->T, Vt = sd->Vt;
    p_push(p, OP_PY, "train.py(98): forward_step");
    p_push(p, OP_MOD, "nn.Module: GPTModel_0");
    p_push(p, OP_MOD, "nn.Module: VocabParallelEmbedding_0");
    syn_op *op = p_cpu(p, "aten::embedding", 1, 6000);
    in_tensor(op, T_BF16, 2, Vt, sd->H, 0);
    batch_input(op, sd);
    in_scalar(op, "-1");
    in_scalar(op, "False");
    sd->ag_emb = op ? op->agl : 0;
    p_launch(p, K_EMB, mem_ns(T * sd->H * 2), T * sd->H / 2048 + 1, 128, 32,
             0, 0);
    p_pop(p);
    p_pop(p);
    for (int l = 0; l < sd->L; l++)
        fwd_layer(p, nm, sd, l);
    sd->ag_lnf = layer_norm_mod(p, nm, sd);
    sd->ag_head = linear_mod(p, nm, sd, sd->H, Vt, 0);
    op = p_cpu(p, "aten::softmax", 0, 3000);
    in_tensor(op, T_F32, 2, T, Vt, 0);
    in_scalar(op, "-1");
    in_scalar(op, "");
    op = p_cpu(p, "aten::_softmax", 1, 4000);
    in_tensor(op, T_F32, 2, T, Vt, 0);
    in_scalar(op, "-1");
    in_scalar(op, "False");
    sd->ag_sm = op ? op->agl : 0;
    p_launch(p, K_SOFTMAX, mem_ns(T * Vt * 8), T, 128, 32, 0, 0);
    p_pop(p);
    p_pop(p);
    op = p_cpu(p, "aten::mul", 1, 3000);
    in_tensor(op, T_F32, 0, 0, 0, 0);
    in_scalar(op, "0.5");
    p_launch(p, K_MUL, 1500, 1, 64, 16, 0, 0);
    p_pop(p);
    p_pop(p); /* GPTModel */
    p_pop(p); /* forward_step */
    if (sd->has_world)
        py_coll(p, "train.py(121): reduce_loss", SYN_C_LOSS_AR, 1);
}

/* Closes the two frames of a backward function. */
static void bwd_end(syn_prog *p)
{
    p_pop(p);
    p_pop(p);
}

/* Backward of a matmul (MmBackward0 / AddmmBackward0, fn): the gradient
 * gemms [T, n1] x [n1, k1] and [m2, n2] x [n2, T]. */
static void bwd_mm(syn_prog *p, const char *eval, const char *fn, int ref,
                   int64_t T, int64_t n1, int64_t k1, int64_t m2, int64_t n2)
{
    p_bwdfn(p, eval, fn, ref);
    p_bwd_gemm(p, "aten::mm", T, n1, k1, K_GEMM_NN);
    p_bwd_gemm(p, "aten::mm", m2, n2, T, K_GEMM_NT);
    bwd_end(p);
}

/* Backward of a layer norm over [T, H]. */
static void bwd_layer_norm(syn_prog *p, const step_dims *sd, int ref)
{
    p_bwdfn(p, EVAL_FN "NativeLayerNormBackward0",
            "NativeLayerNormBackward0", ref);
    p_bwd_kernel_op(p, "aten::native_layer_norm_backward", K_LN_BWD, sd->T,
                    sd->H, mem_ns(sd->T * sd->H * 6), 0);
    bwd_end(p);
}

/* Backward of a residual add (no kernel of its own). */
static void bwd_add(syn_prog *p, int ref)
{
    p_bwdfn(p, EVAL_FN "AddBackward0", "AddBackward0", ref);
    bwd_end(p);
}

/* Transformer layer l backward, in reverse order of the forward; the TP
 * all-reduces before each norm, the layer's DP reduce-scatter last. */
static void bwd_layer(syn_prog *p, const step_dims *sd, int l)
{
    const tlm_synth_opts *o = sd->o;
    const int *a = &sd->ag[l * AG_PER_LAYER];
    int64_t T = sd->T, H = sd->H, Ht = sd->Ht, Ft = sd->Ft;
    bwd_add(p, a[AG_ADD2]);
    bwd_mm(p, EVAL_FN "MmBackward0", "MmBackward0", a[AG_FC2], T, Ft, H, Ft,
           H);
    p_bwdfn(p, EVAL_FN "GeluBackward0", "GeluBackward0", a[AG_GELU]);
    p_bwd_kernel_op(p, "aten::gelu_backward", K_GELU_BWD, T, Ft,
                    mem_ns(T * Ft * 6), 0);
    bwd_end(p);
    bwd_mm(p, EVAL_FN "AddmmBackward0", "AddmmBackward0", a[AG_FC1], T, H,
           Ft, Ft, H);
    if (sd->has_tp)
        p_coll(p, SYN_C_TP_AR, T * H);
    bwd_layer_norm(p, sd, a[AG_LN2]);
    bwd_add(p, a[AG_ADD1]);
    bwd_mm(p, EVAL_FN "MmBackward0", "MmBackward0", a[AG_PROJ], T, Ht, H, Ht,
           H);
    p_bwdfn(p, EVAL_FN "ScaledDotProductFlashAttentionBackward0",
            "ScaledDotProductFlashAttentionBackward0", a[AG_SDPA]);
    syn_op *op = p_cpu(p,
                       "aten::_scaled_dot_product_flash_attention_backward",
                       0, 4000);
    attn_inputs(op, sd, 4);
    p_bwd_kernel_op(p, "aten::_flash_attention_backward", K_FLASH_BWD,
                    o->batch * sd->heads_t * o->seq_len, sd->hd,
                    10 * o->batch * sd->heads_t * (int64_t)o->seq_len *
                        o->seq_len * sd->hd / 2 / 300000,
                    1);
    p_pop(p);
    bwd_end(p);
    bwd_mm(p, EVAL_FN "AddmmBackward0", "AddmmBackward0", a[AG_QKV], T, H,
           3 * Ht, 3 * Ht, H);
    if (sd->has_tp)
        p_coll(p, SYN_C_TP_AR, T * H);
    bwd_layer_norm(p, sd, a[AG_LN1]);
    if (sd->has_dp)
        p_coll(p, SYN_C_DP_RS, sd->layer_params);
}

/* The backward pass: the main thread blocks in backward(), the autograd
 * engine runs the graph on its own thread. */
static void build_backward(syn_prog *p, const step_dims *sd)
{
    int64_t T = sd->T, H = sd->H, Vt = sd->Vt;
    p_push(p, OP_PY, "torch/_tensor.py(626): backward");
    p_push(p, OP_PY, "torch/autograd/__init__.py(347): backward");
    prog_add(p, OP_BWD_BEGIN, NULL);
    p_bwdfn(p, EVAL_FN "SoftmaxBackward0", "SoftmaxBackward0", sd->ag_sm);
    p_bwd_kernel_op(p, "aten::_softmax_backward_data", K_SOFTMAX, T, Vt,
                    mem_ns(T * Vt * 12), 0);
    bwd_end(p);
    bwd_mm(p, EVAL_FN "MmBackward0", "MmBackward0", sd->ag_head, T, H, Vt, H,
           Vt);
    bwd_layer_norm(p, sd, sd->ag_lnf);
    for (int l = sd->L - 1; l >= 0; l--)
        bwd_layer(p, sd, l);
    p_bwdfn(p, EVAL_FN "EmbeddingBackward0", "EmbeddingBackward0",
            sd->ag_emb);
    p_bwd_kernel_op(p, "aten::embedding_dense_backward", K_EMB_BWD, T, H,
                    mem_ns(T * H * 4), 0);
    bwd_end(p);
    prog_add(p, OP_BWD_END, NULL);
    p_pop(p);
    p_pop(p);
}

/* The optimizer (AdamW, foreach implementation) on this rank's shard,
 * then the DP all-gathers of the updated parameters. */
static void build_optimizer(syn_prog *p, const syn_job *job,
                            const step_dims *sd)
{
    int L = sd->L;
    p_push(p, OP_PY, "torch/optim/optimizer.py(487): wrapper");
    p_push(p, OP_PY, "torch/optim/adamw.py(204): step");
    syn_op *op;
    if (sd->has_dp) {
        op = prog_add(p, OP_WAIT, "cudaStreamWaitEvent");
        if (op)
            op->ckind = SYN_PG_DP;
    }
    int64_t shard = sd->has_dp ? sd->layer_params / job->dp
                               : sd->layer_params;
    int64_t n_t = (int64_t)L * 12;
    static const char *const fe_names[] = {
        "aten::_foreach_mul_", "aten::_foreach_add_",
        "aten::_foreach_addcmul_", "aten::_foreach_sqrt",
        "aten::_foreach_div_", "aten::_foreach_add_"};
    static const char *const fe_kern[] = {K_MTA_MUL, K_MTA_ADD,
                                          K_MTA_ADDCMUL, K_MTA_SQRT,
                                          K_MTA_MUL, K_MTA_ADD};
    for (int i = 0; i < 6; i++) {
        op = p_cpu(p, fe_names[i], 0, 20000 + 2000 * n_t);
        in_tensor(op, "TensorList", 1, shard / 12, 0, 0);
        if (i == 1 || i == 2 || i == 5)
            in_tensor(op, "TensorList", 1, shard / 12, 0, 0);
        in_scalar(op, i == 0 ? "0.9" : "1");
        p_launch(p, fe_kern[i], mem_ns(shard * (int64_t)L * 4 * 3),
                 shard * L / 65536 + 1, 512, 32, 0, 0);
        p_pop(p);
    }
    /* fp32 master weights back into the bf16 parameters */
    op = p_cpu(p, "aten::copy_", 0, 4000);
    in_tensor(op, T_BF16, 1, shard * L, 0, 0);
    in_tensor(op, T_F32, 1, shard * L, 0, 0);
    in_scalar(op, "False");
    p_launch(p, K_COPY, mem_ns(shard * (int64_t)L * 6),
             shard * L / 512 + 1, 128, 16, 0, 0);
    p_pop(p);
    op = p_cpu(p, "aten::zero_", 0, 2000);
    in_tensor(op, T_F32, 1, 1, 0, 0);
    op = p_cpu(p, "aten::fill_", 0, 2000);
    in_tensor(op, T_F32, 1, 1, 0, 0);
    in_scalar(op, "0");
    op = prog_add(p, OP_MEMSET, "Memset (Device)");
    if (op)
        op->n = 4;
    p_pop(p);
    p_pop(p);
    if (sd->has_dp)
        for (int l = 0; l < L; l++)
            p_coll(p, SYN_C_DP_AG, shard);
    p_pop(p);
    p_pop(p);
}

/* loss.item(): device-to-host copy, then the CPU waits for the GPU. */
static void build_log_metrics(syn_prog *p)
{
    p_push(p, OP_PY, "train.py(131): log_metrics");
    syn_op *op = p_cpu(p, "aten::item", 0, 2000);
    in_tensor(op, T_F32, 0, 0, 0, 0);
    op = p_cpu(p, "aten::_local_scalar_dense", 0, 3000);
    in_tensor(op, T_F32, 0, 0, 0, 0);
    op = prog_add(p, OP_MEMCPY, "Memcpy DtoH (Device -> Pageable)");
    if (op) {
        op->n = 4;
        op->ckind = 2;
    }
    prog_add(p, OP_SYNC, "cudaStreamSynchronize");
    p_pop(p);
    p_pop(p);
    p_pop(p);
}

/* Builds one training step (the same for every step and every rank; the
 * step number and the rank's groups are applied when it runs). */
static void build_program(const syn_job *job, syn_prog *p, syn_names *nm)
{
    const tlm_synth_opts *o = &job->o;
    int64_t tp = o->tp;
    step_dims sd;
    memset(&sd, 0, sizeof sd);
    sd.o = o;
    sd.T = (int64_t)o->batch * o->seq_len;
    sd.H = o->hidden;
    sd.Ht = sd.H / tp;
    sd.Ft = 4 * sd.H / tp;
    sd.Vt = o->vocab / tp;
    sd.hd = sd.H / o->heads;
    sd.heads_t = o->heads / tp;
    sd.layer_params = 12 * sd.H * sd.H / tp;
    sd.L = o->layers;
    sd.has_tp = o->tp > 1;
    sd.has_dp = job->dp > 1;
    sd.has_world = o->world_size > 1;
    sd.ag = calloc((size_t)sd.L * AG_PER_LAYER + 4, sizeof *sd.ag);
    if (!sd.ag) {
        p->fail = 1;
        return;
    }
    prog_add(p, OP_ANN, "ProfilerStep#");
    p_push(p, OP_PY, "train.py(112): train_step");
    build_input(p, &sd);
    build_forward(p, nm, &sd);
    build_backward(p, &sd);
    build_optimizer(p, job, &sd);
    if (job->n_groups[SYN_PG_P2P] > 0)
        py_coll(p, "train.py(140): exchange_boundary", SYN_C_P2P,
                sd.T * sd.H / 8);
    build_log_metrics(p);
    p_pop(p); /* train_step */
    p_pop(p); /* ProfilerStep */
    p->n_lin = sd.n_lin;
    p->n_ln = sd.n_ln;
    free(sd.ag);
}

/* MARK: - rank state */

#define MAX_DEPTH 48
#define STREAM_COMPUTE 7

typedef struct frame {
    const syn_op *op;
    int64_t ts;
    int64_t ext;
    int64_t pyid;
    int64_t pyparent;   /* -1 = null */
    int64_t evidx;
} frame;

typedef struct thr {
    int64_t t;          /* CPU cursor, global ns */
    int64_t tid;
    frame st[MAX_DEPTH];
    int depth;
} thr;

/* The collective a rank is in the middle of (between arrive and finish). */
typedef struct pend {
    int active;
    size_t inst;
    size_t member;
    int pos;            /* position in the group */
    int kept;
    int64_t a;
    int64_t launch_ts;
    int64_t corr;
    int64_t rpc_ext;
    int64_t ann_ext;
} pend;

typedef struct rs {
    int rank;
    rng r;
    thr th[2];
    int cur;
    int64_t pid;
    int dev;
    int64_t off;
    int64_t sfree[1 + SYN_PG_KINDS];
    int64_t ext;
    int64_t corr;
    int64_t pyid;
    int64_t evidx;
    int step;
    int64_t tmin;
    int64_t tmax;
    tlm_synth_out *out;
    uint64_t n_ev;
    int64_t ws;
    int64_t we;
    size_t kcoll;
    pend pc;
    int64_t slow_extra; /* --straggler_cause: added to pre kernels */
    int64_t host_extra; /* GPU idle the host work before a collective
                           leaves */
    int64_t late_extra; /* collective kernels start this much late */
    int64_t inj;        /* slow_extra pending on the compute stream */
} rs;

static int stream_of(int pgkind)
{
    static const int ids[SYN_PG_KINDS] = {20, 24, 28, 32};
    return ids[pgkind];
}

static int keep_ts(const rs *s, int64_t ts)
{
    return s->out && ts >= s->ws && ts <= s->we;
}

static void note_t(rs *s, int64_t t)
{
    if (t > s->tmax)
        s->tmax = t;
}

/* MARK: - event writing */

#define PUTL(o, lit) tlm_synth_putn((o), "" lit, sizeof(lit) - 1)

static void ev_open(rs *s, const char *ph, const char *cat)
{
    tlm_synth_out *o = s->out;
    if (s->n_ev)
        PUTL(o, ",\n  {\"ph\": \"");
    else
        PUTL(o, "\n  {\"ph\": \"");
    tlm_synth_puts(o, ph);
    if (cat) {
        PUTL(o, "\", \"cat\": \"");
        tlm_synth_puts(o, cat);
    }
    PUTL(o, "\", ");
    s->n_ev++;
}

/* Head of an X event: ph, cat, name, pid, tid, ts, dur; leaves the object
 * open for ", \"args\": {...}}". */
/* The ", pid, tid, ts" keys of an event (ts on the rank's clock). */
static void put_where(rs *s, int64_t pid, int64_t tid, int64_t ts)
{
    tlm_synth_out *o = s->out;
    PUTL(o, ", \"pid\": ");
    tlm_synth_puti(o, pid);
    PUTL(o, ", \"tid\": ");
    tlm_synth_puti(o, tid);
    PUTL(o, ", \"ts\": ");
    tlm_synth_putus(o, ts + s->off);
}

static void ev_x(rs *s, const char *cat, const char *name, int64_t pid,
                 int64_t tid, int64_t ts, int64_t dur)
{
    tlm_synth_out *o = s->out;
    ev_open(s, "X", cat);
    PUTL(o, "\"name\": ");
    tlm_synth_putq(o, name);
    put_where(s, pid, tid, ts);
    PUTL(o, ", \"dur\": ");
    tlm_synth_putus(o, dur);
}

static void key_i(tlm_synth_out *o, const char *key, int64_t v, int first)
{
    if (!first)
        PUTL(o, ", ");
    tlm_synth_putc(o, '"');
    tlm_synth_puts(o, key);
    PUTL(o, "\": ");
    tlm_synth_puti(o, v);
}

static void key_s(tlm_synth_out *o, const char *key, const char *v)
{
    PUTL(o, ", \"");
    tlm_synth_puts(o, key);
    PUTL(o, "\": ");
    tlm_synth_putq(o, v);
}

/* num / den with six decimals (num, den >= 0, den > 0). */
static void put_fixed6(tlm_synth_out *o, int64_t num, int64_t den)
{
    int64_t ip = num / den;
    int64_t fr = (num % den) * 1000000 / den;
    char tmp[8];
    tlm_synth_puti(o, ip);
    tlm_synth_putc(o, '.');
    for (int i = 5; i >= 0; i--) {
        tmp[i] = (char)('0' + fr % 10);
        fr /= 10;
    }
    tlm_synth_putn(o, tmp, 6);
}

static void flow(rs *s, int start, int64_t id, int64_t pid, int64_t tid,
                 int64_t ts)
{
    tlm_synth_out *o = s->out;
    ev_open(s, start ? "s" : "f", NULL);
    PUTL(o, "\"id\": ");
    tlm_synth_puti(o, id);
    put_where(s, pid, tid, ts);
    if (start)
        PUTL(o, ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}");
    else
        PUTL(o, ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
}

static void runtime_ev(rs *s, const char *name, int64_t ts, int64_t dur,
                       int64_t ext, int cbid, int64_t corr)
{
    tlm_synth_out *o = s->out;
    ev_x(s, "cuda_runtime", name, s->pid, s->th[s->cur].tid, ts, dur);
    PUTL(o, ", \"args\": {");
    int first = 1;
    if (ext > 0) {
        key_i(o, "External id", ext, 1);
        first = 0;
    }
    key_i(o, "cbid", cbid, first);
    if (corr > 0)
        key_i(o, "correlation", corr, 0);
    PUTL(o, "}}");
}

/* A launch dimension as "x, y, z". */
static void put_dim3(tlm_synth_out *o, const int32_t v[3])
{
    for (int i = 0; i < 3; i++) {
        if (i)
            PUTL(o, ", ");
        tlm_synth_puti(o, v[i]);
    }
}

/* Kernel args common to compute and NCCL kernels; leaves args open. */
static void kernel_ev(rs *s, const char *name, int stream, int64_t ts,
                      int64_t dur, int64_t ext, int64_t corr,
                      const int32_t grid[3], const int32_t block[3],
                      int regs, int smem)
{
    tlm_synth_out *o = s->out;
    ev_x(s, "kernel", name, s->dev, stream, ts, dur);
    PUTL(o, ", \"args\": {");
    key_i(o, "External id", ext, 1);
    PUTL(o, ", \"queued\": 0");
    key_i(o, "device", s->dev, 0);
    PUTL(o, ", \"context\": 1");
    key_i(o, "stream", stream, 0);
    key_i(o, "correlation", corr, 0);
    key_i(o, "registers per thread", regs, 0);
    key_i(o, "shared memory", smem, 0);
    int64_t blocks = (int64_t)grid[0] * grid[1] * grid[2];
    int64_t threads = (int64_t)block[0] * block[1] * block[2];
    PUTL(o, ", \"blocks per SM\": ");
    put_fixed6(o, blocks, 132);
    PUTL(o, ", \"warps per SM\": ");
    put_fixed6(o, blocks * ((threads + 31) / 32), 132);
    PUTL(o, ", \"grid\": [");
    put_dim3(o, grid);
    PUTL(o, "], \"block\": [");
    put_dim3(o, block);
    PUTL(o, "]");
    int64_t occ = threads * blocks >= 2048 * 132 ? 100
                                                 : threads * blocks * 100 /
                                                       (2048 * 132);
    key_i(o, "est. achieved occupancy %", occ, 0);
}

static void put_dims(tlm_synth_out *o, const syn_in *in, int strides)
{
    if (in->nd < 0 || strcmp(in->type, "TensorList") == 0) {
        PUTL(o, "[[");
        tlm_synth_puti(o, strides ? 1 : in->d[0]);
        PUTL(o, "]]");
        return;
    }
    tlm_synth_putc(o, '[');
    for (int i = 0; i < in->nd; i++) {
        if (i)
            PUTL(o, ", ");
        int64_t v = in->d[i];
        if (strides) {
            v = 1;
            for (int j = i + 1; j < in->nd; j++)
                v *= in->d[j];
        }
        tlm_synth_puti(o, v);
    }
    tlm_synth_putc(o, ']');
}

/* cpu_op from a program op (closed frame f). */
static void cpu_op_ev(rs *s, const frame *f, int64_t end, int64_t seqnr,
                      int fwd_tid)
{
    tlm_synth_out *o = s->out;
    const syn_op *op = f->op;
    ev_x(s, "cpu_op", op->name, s->pid, s->th[s->cur].tid, f->ts,
         end - f->ts);
    PUTL(o, ", \"args\": {");
    key_i(o, "External id", f->ext, 1);
    PUTL(o, ", \"Record function id\": 0");
    if (seqnr >= 0) {
        key_i(o, "Sequence number", seqnr, 0);
        key_i(o, "Fwd thread id", fwd_tid, 0);
    }
    if (op->n_in > 0) {
        PUTL(o, ", \"Concrete Inputs\": [");
        for (int i = 0; i < op->n_in; i++) {
            if (i)
                PUTL(o, ", ");
            tlm_synth_putq(o, op->in[i].conc);
        }
        PUTL(o, "], \"Input type\": [");
        for (int i = 0; i < op->n_in; i++) {
            if (i)
                PUTL(o, ", ");
            tlm_synth_putq(o, op->in[i].type);
        }
        PUTL(o, "], \"Input Strides\": [");
        for (int i = 0; i < op->n_in; i++) {
            if (i)
                PUTL(o, ", ");
            put_dims(o, &op->in[i], 1);
        }
        PUTL(o, "], \"Input Dims\": [");
        for (int i = 0; i < op->n_in; i++) {
            if (i)
                PUTL(o, ", ");
            put_dims(o, &op->in[i], 0);
        }
        PUTL(o, "]");
    }
    key_i(o, "Ev Idx", f->evidx, 0);
    PUTL(o, "}}");
}

/* MARK: - collectives */

typedef struct cinfo {
    int pgkind;
    const char *name;   /* Collective name */
    const char *c10d;
    const char *ann;
    const char *kbase;  /* kernel name after "ncclDevKernel_" */
    const char *dtype;
    const char *itype;
    int dsize;
    int blocking;
} cinfo;

static void coll_info(int ckind, int pos, cinfo *ci)
{
    /* pg kind, Collective name, c10d op, nccl:* annotation, kernel base,
     * dtype, input type, element size, blocking */
    const cinfo rows[SYN_C_KINDS] = {
        [SYN_C_TP_AR] = {SYN_PG_TP, "allreduce", "c10d::allreduce_",
                         "nccl:all_reduce", "AllReduce_Sum_bf16_RING_LL",
                         "BFloat16", T_BF16, 2, 1},
        [SYN_C_DP_RS] = {SYN_PG_DP, "_reduce_scatter_base",
                         "c10d::_reduce_scatter_base_",
                         "nccl:_reduce_scatter_base",
                         "ReduceScatter_Sum_bf16_RING_LL", "BFloat16",
                         T_BF16, 2, 0},
        [SYN_C_DP_AG] = {SYN_PG_DP, "_allgather_base",
                         "c10d::_allgather_base_", "nccl:_all_gather_base",
                         "AllGather_RING_LL", "BFloat16", T_BF16, 2, 0},
        [SYN_C_LOSS_AR] = {SYN_PG_DEFAULT, "allreduce", "c10d::allreduce_",
                           "nccl:all_reduce", "AllReduce_Sum_f32_RING_LL",
                           "Float", T_F32, 4, 1},
        [SYN_C_BCAST] = {SYN_PG_DEFAULT, "broadcast", "c10d::broadcast_",
                         "nccl:broadcast", "Broadcast_RING_LL", "Long",
                         "long int", 8, 1},
        [SYN_C_A2A] = {SYN_PG_DP, "all_to_all", "c10d::alltoall_base_",
                       "nccl:all_to_all", "SendRecv", "BFloat16", T_BF16, 2,
                       1},
        [SYN_C_A2AV] = {SYN_PG_DP, "all_to_allv", "c10d::alltoall_base_",
                        "nccl:all_to_all", "SendRecv", "BFloat16", T_BF16,
                        2, 1},
        [SYN_C_P2P] = {SYN_PG_P2P, "send", "c10d::send", "nccl:send",
                       "SendRecv", "BFloat16", T_BF16, 2, 1},
    };
    if (ckind < 0 || ckind >= SYN_C_KINDS)
        ckind = SYN_C_P2P;
    *ci = rows[ckind];
    if (ckind == SYN_C_P2P && pos != 0) { /* the receiving side */
        ci->name = "recv";
        ci->c10d = "c10d::recv_";
        ci->ann = "nccl:recv";
    }
}

static uint64_t mix3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t x = a ^ (b * 0x9e3779b97f4a7c15ull) ^ (c * 0xc2b2ae3d27d4eb4full);
    return splitmix(&x);
}

/* all_to_allv: rank at position i sends v[(j - i) mod n] elements to
 * position j; every row and column sums to the same total. */
static int64_t a2av_v(const syn_job *job, size_t inst, int j)
{
    const tlm_synth_opts *o = &job->o;
    int64_t base = (int64_t)o->batch * o->seq_len * o->hidden / 4 / job->dp;
    if (base < 2)
        base = 2;
    return base / 2 + (int64_t)(mix3(o->seed, inst, (uint64_t)j) %
                                (uint64_t)base);
}

static int pg_spans_nodes(const syn_job *job, const tlm_synth_pg *pg)
{
    int g = job->o.gpus_per_node;
    for (int i = 1; i < pg->size; i++)
        if (pg->ranks[i] / g != pg->ranks[0] / g)
            return 1;
    return 0;
}

/* Appends one instance per group of the op's kind (resolve mode). */
static tlm_status colls_create(syn_job *job, int ckind, int64_t n, int step)
{
    cinfo ci;
    coll_info(ckind, 0, &ci);
    tlm_synth_truth *t = job->t;
    int ng = job->n_groups[ci.pgkind];
    for (int g = 0; g < ng; g++) {
        int pgi = job->first_pg[ci.pgkind] + g;
        const tlm_synth_pg *pg = &t->pgs[pgi];
        /* members and member_issue: parallel arrays, one capacity */
        size_t cap_m = job->cap_members, cap_i = job->cap_members;
        size_t need = t->n_members + (size_t)pg->size;
        if (tlm_grow((void **)&t->colls, &job->cap_colls, t->n_colls + 1,
                     sizeof *t->colls, 1024) ||
            tlm_grow((void **)&t->members, &cap_m, need, sizeof *t->members,
                     1024) ||
            tlm_grow((void **)&job->member_issue, &cap_i, need,
                     sizeof *job->member_issue, 1024))
            return TLM_ENOMEM;
        job->cap_members = cap_m;
        size_t inst = t->n_colls++;
        tlm_synth_coll *c = &t->colls[inst];
        memset(c, 0, sizeof *c);
        c->pg = pgi;
        c->name = ci.name;
        c->dtype = ci.dtype;
        int sz = pg->size;
        switch (ckind) {
        case SYN_C_DP_RS:
            c->in_nelems = n;
            c->out_nelems = n / sz;
            c->bytes = n * ci.dsize;
            break;
        case SYN_C_DP_AG:
            c->in_nelems = n;
            c->out_nelems = n * sz;
            c->bytes = n * sz * ci.dsize;
            break;
        case SYN_C_A2AV: {
            int64_t sum = 0;
            for (int j = 0; j < sz; j++)
                sum += a2av_v(job, inst, j);
            c->in_nelems = sum;
            c->out_nelems = sum;
            c->bytes = sum * ci.dsize;
            break;
        }
        default:
            c->in_nelems = n;
            c->out_nelems = n;
            c->bytes = n * ci.dsize;
            break;
        }
        c->seq = ++job->pg_seq[pgi];
        if (ckind == SYN_C_P2P && (job->o.p2p_seq_first || job->o.p2p_seq_step))
            c->seq = (job->o.p2p_seq_first ? job->o.p2p_seq_first : 1) +
                     (c->seq - 1) *
                         (job->o.p2p_seq_step ? job->o.p2p_seq_step : 1);
        c->step = step;
        c->first_member = t->n_members;
        c->n_members = sz;
        for (int i = 0; i < sz; i++) {
            tlm_synth_member *m = &t->members[t->n_members++];
            memset(m, 0, sizeof *m);
            m->rank = pg->ranks[i];
            m->kept = 1;
        }
        /* communication time: latency + bus bytes / link bandwidth */
        int inter = pg_spans_nodes(job, pg);
        int64_t bw = inter ? 20 : 150; /* bytes per ns = GB/s */
        int64_t bus = c->bytes;
        if (ckind == SYN_C_TP_AR || ckind == SYN_C_LOSS_AR)
            bus = c->bytes * 2 * (sz - 1) / sz;
        else if (ckind != SYN_C_BCAST && ckind != SYN_C_P2P)
            bus = c->bytes * (sz - 1) / sz;
        int64_t lat = inter ? 6000 + 1500 * (int64_t)sz
                            : 3000 + 400 * (int64_t)sz;
        int64_t cns = lat + bus / bw;
        int64_t pm = (int64_t)(mix3(job->o.seed ^ 0x5eedull, inst, 7) % 61);
        c->comm_ns = cns + cns * (pm - 30) / 1000;
        if (c->comm_ns < 1000)
            c->comm_ns = 1000;
    }
    return TLM_OK;
}

static void coll_resolve(syn_job *job, size_t inst)
{
    tlm_synth_truth *t = job->t;
    tlm_synth_coll *c = &t->colls[inst];
    tlm_synth_member *m = &t->members[c->first_member];
    int64_t mx = m[0].start_ns;
    int64_t mn = m[0].start_ns;
    for (int i = 1; i < c->n_members; i++) {
        if (m[i].start_ns > mx)
            mx = m[i].start_ns;
        if (m[i].start_ns < mn)
            mn = m[i].start_ns;
    }
    c->end_ns = mx + c->comm_ns;
    c->skew_ns = mx - mn;
    for (int i = 0; i < c->n_members; i++)
        m[i].end_ns = c->end_ns;
}

/* MARK: - collective event chain */

/* v[0..n) as "a, b, c". */
static void put_ints(tlm_synth_out *o, const int *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            PUTL(o, ", ");
        tlm_synth_puti(o, v[i]);
    }
}

static void put_ranks_str(tlm_synth_out *o, const tlm_synth_pg *pg)
{
    PUTL(o, "\"[");
    put_ints(o, pg->ranks, pg->size);
    PUTL(o, "]\"");
}

static void put_split(tlm_synth_out *o, const syn_job *job, size_t inst,
                      int ckind, int n, int pos, int out)
{
    if (ckind != SYN_C_A2AV) {
        PUTL(o, "\"[]\"");
        return;
    }
    PUTL(o, "\"[");
    for (int j = 0; j < n; j++) {
        if (j)
            PUTL(o, ", ");
        int k = out ? ((pos - j) % n + n) % n : ((j - pos) % n + n) % n;
        tlm_synth_puti(o, a2av_v(job, inst, k));
    }
    PUTL(o, "]\"");
}

/* Named collective keys (schema >= 2), on record_param_comms and kernels. */
static void coll_meta(rs *s, const syn_job *job, size_t inst, int ckind,
                      int pos, const cinfo *ci)
{
    tlm_synth_out *o = s->out;
    const tlm_synth_coll *c = &job->t->colls[inst];
    const tlm_synth_pg *pg = &job->t->pgs[c->pg];
    key_s(o, "Collective name", ci->name);
    key_i(o, "In msg nelems", c->in_nelems, 0);
    key_i(o, "Out msg nelems", c->out_nelems, 0);
    int gm = !job->o.no_group_meta;
    if (gm)
        key_i(o, "Group size", pg->size, 0);
    key_s(o, "dtype", ci->dtype);
    PUTL(o, ", \"In split size\": ");
    put_split(o, job, inst, ckind, pg->size, pos, 0);
    PUTL(o, ", \"Out split size\": ");
    put_split(o, job, inst, ckind, pg->size, pos, 1);
    if (gm) {
        key_s(o, "Process Group Name", pg->name);
        key_s(o, "Process Group Description", pg->desc);
        PUTL(o, ", \"Process Group Ranks\": ");
        put_ranks_str(o, pg);
    }
    key_i(o, "Rank", s->rank, 0);
    if (gm) {
        key_i(o, "Global rank start", pg->rank_start, 0);
        key_i(o, "Global rank stride", pg->rank_stride, 0);
    }
    if (job->o.schema >= 3) {
        key_i(o, "Seq", c->seq, 0);
        if (ckind == SYN_C_P2P) {
            if (pos == 0)
                key_i(o, "Dst Rank", pg->ranks[1], 0);
            else
                key_i(o, "Src Rank", pg->ranks[0], 0);
        }
        key_i(o, "Comms Id",
              (int64_t)(mix3(job->o.seed, 0xc0ull, (uint64_t)c->pg) >> 20),
              0);
    }
}

static void put_in_dims(tlm_synth_out *o, int64_t n, int empties)
{
    PUTL(o, ", \"Input Dims\": [[[");
    tlm_synth_puti(o, n);
    PUTL(o, "]]");
    for (int i = 0; i < empties; i++)
        PUTL(o, ", []");
    PUTL(o, "]");
}

/* Concrete Inputs and Input type of a collective's record_param_comms, in
 * the Apr 2024 OSS form: [tensors, seq, pg-name tuple (not recorded),
 * group rank, name, in split, out split, global rank start, stride, group
 * size]; the seq only where with_seq (schema 1; later it is a named key). */
static void put_rpc_concrete(tlm_synth_out *o, const tlm_synth_coll *c,
                             const tlm_synth_pg *pg, int pos, int with_seq,
                             int no_group)
{
    PUTL(o, ", \"Concrete Inputs\": [\"\", \"");
    if (with_seq)
        tlm_synth_puti(o, c->seq);
    PUTL(o, "\", \"\", \"");
    tlm_synth_puti(o, pos);
    PUTL(o, "\", \"\", \"[]\", \"[]");
    const int64_t ap[3] = {pg->rank_start, pg->rank_stride, pg->size};
    for (int i = 0; i < 3; i++) {
        PUTL(o, "\", \"");
        tlm_synth_puti(o, no_group ? -1 : ap[i]);
    }
    PUTL(o, "\"], \"Input type\": [\"TensorList\", ");
    if (with_seq)
        PUTL(o, "\"Scalar\"");
    else
        PUTL(o, "\"\"");
    PUTL(o, ", \"\", \"Scalar\", \"\", \"ScalarList\", \"ScalarList\", "
            "\"Scalar\", \"Scalar\", \"Scalar\"]");
}

static void write_coll_cpu(rs *s, const syn_job *job, size_t inst,
                           int ckind, const cinfo *ci, const int64_t *tm,
                           const int64_t *ext, const int64_t *ev)
{
    tlm_synth_out *o = s->out;
    const tlm_synth_coll *c = &job->t->colls[inst];
    const tlm_synth_pg *pg = &job->t->pgs[c->pg];
    int pos = s->pc.pos;
    int64_t tid = s->th[s->cur].tid;
    int schema = job->o.schema;
    int64_t n_in = c->in_nelems;

    /* tm: c10d ts/end, rpc ts/end, ann ts/end, launch ts/dur, wait ts/dur */
    ev_x(s, "cpu_op", ci->c10d, s->pid, tid, tm[0], tm[1] - tm[0]);
    PUTL(o, ", \"args\": {");
    key_i(o, "External id", ext[0], 1);
    PUTL(o, ", \"Record function id\": 0, \"Concrete Inputs\": "
            "[\"\", \"\", \"\", \"\", \"-1\"], \"Input type\": "
            "[\"TensorList\", \"\", \"\", \"\", \"Scalar\"]");
    put_in_dims(o, n_in, 4);
    key_i(o, "Ev Idx", ev[0], 0);
    PUTL(o, "}}");

    ev_x(s, "cpu_op", "record_param_comms", s->pid, tid, tm[2],
         tm[3] - tm[2]);
    PUTL(o, ", \"args\": {");
    key_i(o, "External id", ext[1], 1);
    PUTL(o, ", \"Record function id\": 0");
    if (schema != 1)
        coll_meta(s, job, inst, ckind, pos, ci);
    put_rpc_concrete(o, c, pg, pos, schema == 1, job->o.no_group_meta);
    put_in_dims(o, n_in, 9);
    key_i(o, "Ev Idx", ev[1], 0);
    PUTL(o, "}}");

    ev_x(s, "user_annotation", ci->ann, s->pid, tid, tm[4], tm[5] - tm[4]);
    PUTL(o, ", \"args\": {");
    key_i(o, "External id", ext[2], 1);
    PUTL(o, ", \"Record function id\": 0, \"Input type\": [");
    tlm_synth_putq(o, ci->itype);
    PUTL(o, "], \"Input Dims\": [[");
    tlm_synth_puti(o, n_in);
    PUTL(o, "]]");
    key_i(o, "Ev Idx", ev[2], 0);
    PUTL(o, "}}");

    runtime_ev(s, "cudaLaunchKernel", tm[6], tm[7], ext[1], 211,
               s->pc.corr);
    flow(s, 1, s->pc.corr, s->pid, tid, tm[6]);

    if (ci->blocking) {
        ev_x(s, "cpu_op", "record_param_comms", s->pid, tid, tm[8], tm[9]);
        PUTL(o, ", \"args\": {");
        key_i(o, "External id", ext[3], 1);
        PUTL(o, ", \"Record function id\": 0");
        if (schema == 1) {
            /* no tensors: [seq, pg-name tuple, group rank, name,
             * in split, out split, -1, -1, 1] */
            PUTL(o, ", \"Concrete Inputs\": [\"");
            tlm_synth_puti(o, c->seq);
            PUTL(o, "\", \"\", \"");
            tlm_synth_puti(o, pos);
            PUTL(o, "\", \"\", \"[]\", \"[]\", \"-1\", \"-1\", \"1\"], "
                    "\"Input type\": [\"Scalar\", \"\", \"Scalar\", "
                    "\"\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                    "\"Scalar\", \"Scalar\"]");
        } else if (job->o.no_group_meta) {
            PUTL(o, ", \"Collective name\": \"wait\", \"In msg nelems\": 0, "
                    "\"Out msg nelems\": 0, \"dtype\": \"Byte\", "
                    "\"In split size\": \"[]\", \"Out split size\": \"[]\"");
        } else {
            PUTL(o, ", \"Collective name\": \"wait\", \"In msg nelems\": 0, "
                    "\"Out msg nelems\": 0, \"Group size\": 1, "
                    "\"dtype\": \"Byte\", \"In split size\": \"[]\", "
                    "\"Out split size\": \"[]\", \"Process Group Ranks\": "
                    "\"[]\", \"Global rank start\": -1, "
                    "\"Global rank stride\": -1");
        }
        key_i(o, "Ev Idx", ev[3], 0);
        PUTL(o, "}}");
    }
}

static void nccl_kernel_name(char *buf, size_t size, const cinfo *ci,
                             int schema)
{
    snprintf(buf, size, "ncclDevKernel_%s(%s)", ci->kbase,
             schema == 1 ? "ncclDevComm*, unsigned long, ncclWork*"
                         : "ncclDevKernelArgsStorage<4096ul>");
}

/* --straggler_cause host_busy: before a collective the host runs a
 * python function until the GPU (compute stream and the group's stream)
 * has been idle host_extra ns, as a host that blocks and then computes
 * would.  Returns how far the host cursor moved. */
static int64_t host_work(rs *s, thr *th, int k)
{
    if (s->host_extra <= 0)
        return 0;
    int64_t gpu = s->sfree[0] > s->sfree[1 + k] ? s->sfree[0]
                                                : s->sfree[1 + k];
    int64_t t0 = th->t;
    int64_t end = (gpu > t0 ? gpu : t0) + s->host_extra;
    int64_t pyid = ++s->pyid;
    int64_t evidx = s->evidx++;
    th->t = end;
    note_t(s, end);
    if (!keep_ts(s, t0))
        return end - t0;
    int64_t parent = -1;
    for (int i = th->depth - 1; i >= 0; i--) {
        if (th->st[i].pyid > 0) {
            parent = th->st[i].pyid;
            break;
        }
    }
    tlm_synth_out *o = s->out;
    ev_x(s, "python_function", "train.py(210): host_work", s->pid, th->tid,
         t0, end - t0);
    PUTL(o, ", \"args\": {\"Python parent id\": ");
    if (parent < 0)
        PUTL(o, "null");
    else
        tlm_synth_puti(o, parent);
    key_i(o, "Python id", pyid, 0);
    key_i(o, "Ev Idx", evidx, 0);
    PUTL(o, "}}");
    return end - t0;
}

static void coll_arrive(syn_job *job, rs *s, int mode, const syn_op *op,
                        size_t inst)
{
    int k;
    cinfo ci;
    coll_info(op->ckind, 0, &ci);
    k = ci.pgkind;
    thr *th = &s->th[s->cur];
    tlm_synth_truth *t = job->t;
    tlm_synth_coll *c = &t->colls[inst];
    int pos = job->gpos[s->rank * SYN_PG_KINDS + k];
    coll_info(op->ckind, pos, &ci);
    size_t member = c->first_member + (size_t)pos;
    int64_t tm[10];
    int64_t ext[4] = {0, 0, 0, 0};
    int64_t ev[4] = {0, 0, 0, 0};

    int64_t shift = host_work(s, th, k);
    tm[0] = th->t + rng_range(&s->r, 300, 1200);
    tm[2] = tm[0] + rng_range(&s->r, 2000, 4000);
    tm[4] = tm[2] + rng_range(&s->r, 3000, 6000);
    tm[6] = tm[4] + rng_range(&s->r, 6000, 12000);
    tm[7] = rng_range(&s->r, 4000, 8000);
    tm[5] = tm[6] + tm[7] + rng_range(&s->r, 800, 2000);
    tm[3] = tm[5] + rng_range(&s->r, 1500, 3000);
    tm[1] = tm[3] + rng_range(&s->r, 2000, 5000);
    th->t = tm[1];
    for (int i = 0; i < 3; i++) {
        ext[i] = ++s->ext;
        ev[i] = s->evidx++;
    }
    if (ci.blocking) {
        tm[8] = tm[1] + rng_range(&s->r, 500, 1500);
        tm[9] = rng_range(&s->r, 2000, 5000);
        th->t = tm[8] + tm[9];
        ext[3] = ++s->ext;
        ev[3] = s->evidx++;
    }
    th->t += rng_range(&s->r, 300, 1000);
    s->pc.corr = ++s->corr;
    int64_t lat = rng_range(&s->r, 3000, 6000);
    int64_t a = tm[6] + lat;
    int64_t a0 = tm[6] - shift + lat; /* without the injected cause */
    if (s->sfree[1 + k] > a)
        a = s->sfree[1 + k];
    if (s->sfree[1 + k] > a0)
        a0 = s->sfree[1 + k];
    if (s->sfree[0] > a)
        a = s->sfree[0];
    if (s->sfree[0] - s->inj > a0)
        a0 = s->sfree[0] - s->inj;
    s->inj = 0;
    if (job->o.jitter_ns > 0) {
        int64_t j = rng_range(&s->r, 0, job->o.jitter_ns);
        a += j;
        a0 += j;
    }
    if (s->rank == job->o.straggler_rank && !job->o.straggler_cause)
        a += job->o.straggler_delay_ns;
    a += s->late_extra;
    if (s->step + 1 == job->o.slow_step) {
        a += job->o.slow_step_delay_ns;
        a0 += job->o.slow_step_delay_ns;
    }

    s->pc.active = 1;
    s->pc.inst = inst;
    s->pc.member = member;
    s->pc.pos = pos;
    s->pc.a = a;
    s->pc.launch_ts = tm[6];
    s->pc.rpc_ext = ext[1];
    s->pc.ann_ext = ext[2];
    s->pc.kept = mode == SYN_REPLAY ? t->members[member].kept : 1;
    if (mode == SYN_RESOLVE) {
        t->members[member].start_ns = a;
        t->members[member].cause_delay_ns = job->o.straggler_cause ? a - a0
                                                                   : 0;
        job->member_issue[member] = tm[0];
    } else {
        assert(t->members[member].start_ns == a);
    }
    s->kcoll++;
    note_t(s, th->t);
    if (s->out && s->pc.kept)
        write_coll_cpu(s, job, inst, op->ckind, &ci, tm, ext, ev);
}

static void coll_finish(syn_job *job, rs *s, const syn_op *op)
{
    cinfo ci;
    coll_info(op->ckind, s->pc.pos, &ci);
    const tlm_synth_member *m = &job->t->members[s->pc.member];
    int64_t a = s->pc.a;
    int64_t end = m->end_ns;
    int stream = stream_of(ci.pgkind);
    s->sfree[1 + ci.pgkind] = end;
    if (ci.blocking && s->sfree[0] < end)
        s->sfree[0] = end;
    note_t(s, end);
    s->pc.active = 0;
    if (!s->out || !s->pc.kept)
        return;
    const tlm_synth_coll *c = &job->t->colls[s->pc.inst];
    char kname[128];
    nccl_kernel_name(kname, sizeof kname, &ci, job->o.schema);
    int32_t grid[3] = {(int32_t)(2 + c->bytes / (4 << 20)), 1, 1};
    int32_t block[3] = {544, 1, 1};
    if (grid[0] > 32)
        grid[0] = 32;
    kernel_ev(s, kname, stream, a, end - a,
              job->o.schema == 1 ? s->pc.corr : s->pc.rpc_ext, s->pc.corr,
              grid, block, 96, 0);
    if (job->o.schema >= 2)
        coll_meta(s, job, s->pc.inst, op->ckind, s->pc.pos, &ci);
    PUTL(s->out, "}}");
    flow(s, 0, s->pc.corr, s->dev, stream, a);
    if (job->o.schema >= 2) {
        ev_x(s, "gpu_user_annotation", ci.ann, s->dev, stream, a, end - a);
        PUTL(s->out, ", \"args\": {");
        key_i(s->out, "External id", s->pc.ann_ext, 1);
        PUTL(s->out, "}}");
    }
}

/* MARK: - running ops */

static int64_t top_ext(const thr *th)
{
    for (int i = th->depth - 1; i >= 0; i--)
        if (th->st[i].ext > 0)
            return th->st[i].ext;
    return 0;
}

static int64_t seq_of(const syn_prog *p, const rs *s, int local)
{
    return 1000 + (int64_t)s->step * p->n_ag + local;
}

static void frame_push(rs *s, const syn_op *op)
{
    thr *th = &s->th[s->cur];
    assert(th->depth < MAX_DEPTH);
    frame *f = &th->st[th->depth];
    th->t += rng_range(&s->r, 300, 1500);
    f->op = op;
    f->ts = th->t;
    f->ext = 0;
    f->pyid = 0;
    f->pyparent = -1;
    f->evidx = s->evidx++;
    if (op->kind == OP_PY || op->kind == OP_MOD) {
        f->pyid = ++s->pyid;
        for (int i = th->depth - 1; i >= 0; i--) {
            if (th->st[i].pyid > 0) {
                f->pyparent = th->st[i].pyid;
                break;
            }
        }
    } else {
        f->ext = ++s->ext;
    }
    th->depth++;
}

static void frame_pop(rs *s, const syn_prog *p)
{
    thr *th = &s->th[s->cur];
    assert(th->depth > 0);
    frame *f = &th->st[--th->depth];
    const syn_op *op = f->op;
    switch (op->kind) {
    case OP_PY:
    case OP_MOD:
        th->t += rng_range(&s->r, 500, 2000);
        break;
    case OP_ANN:
        th->t += rng_range(&s->r, 1000, 3000);
        break;
    case OP_BWDFN:
        th->t += rng_range(&s->r, 1500, 4000);
        break;
    default:
        th->t += rng_vary(&s->r, op->dur, 300);
        break;
    }
    int64_t end = th->t;
    th->t += rng_range(&s->r, 200, 800);
    note_t(s, end);
    if (!keep_ts(s, f->ts))
        return;
    tlm_synth_out *o = s->out;
    if (op->kind == OP_PY || op->kind == OP_MOD) {
        ev_x(s, "python_function", op->name, s->pid, th->tid, f->ts,
             end - f->ts);
        PUTL(o, ", \"args\": {\"Python parent id\": ");
        if (f->pyparent < 0)
            PUTL(o, "null");
        else
            tlm_synth_puti(o, f->pyparent);
        key_i(o, "Python id", f->pyid, 0);
        if (op->kind == OP_MOD)
            key_i(o, "Python module id", op->modid, 0);
        key_i(o, "Ev Idx", f->evidx, 0);
        PUTL(o, "}}");
    } else if (op->kind == OP_ANN) {
        char name[48];
        snprintf(name, sizeof name, "ProfilerStep#%d", s->step + 1);
        ev_x(s, "user_annotation", name, s->pid, th->tid, f->ts,
             end - f->ts);
        PUTL(o, ", \"args\": {");
        key_i(o, "External id", f->ext, 1);
        PUTL(o, ", \"Record function id\": 0");
        key_i(o, "Ev Idx", f->evidx, 0);
        PUTL(o, "}}");
    } else if (op->kind == OP_BWDFN) {
        ev_x(s, "cpu_op", op->name, s->pid, th->tid, f->ts, end - f->ts);
        PUTL(o, ", \"args\": {");
        key_i(o, "External id", f->ext, 1);
        PUTL(o, ", \"Record function id\": 0");
        key_i(o, "Sequence number", seq_of(p, s, op->ag), 0);
        PUTL(o, ", \"Fwd thread id\": 1");
        key_i(o, "Ev Idx", f->evidx, 0);
        PUTL(o, "}}");
    } else {
        cpu_op_ev(s, f, end, op->ag ? seq_of(p, s, op->agl) : -1, 0);
    }
}

/* Launch, memcpy or memset on the compute stream. */
static void gpu_work(rs *s, const syn_op *op)
{
    thr *th = &s->th[s->cur];
    th->t += rng_range(&s->r, 500, 1500);
    int64_t lts = th->t;
    int64_t ldur = rng_range(&s->r, 3500, 7000);
    int64_t corr = ++s->corr;
    int64_t ext = top_ext(th);
    int64_t dur;
    if (op->kind == OP_LAUNCH)
        dur = rng_vary(&s->r, op->dur, 30);
    else if (op->kind == OP_MEMCPY)
        dur = 1200 + op->n / 20;
    else
        dur = 800 + op->n / 200;
    int64_t kst = lts + rng_range(&s->r, 2500, 6000);
    if (s->sfree[0] > kst)
        kst = s->sfree[0];
    if (op->kind == OP_LAUNCH && op->pre && s->slow_extra > 0) {
        dur += s->slow_extra;
        s->inj = s->slow_extra;
    } else {
        s->inj = 0;
    }
    s->sfree[0] = kst + dur;
    th->t = lts + ldur;
    note_t(s, kst + dur);
    const char *rt;
    int cbid;
    if (op->kind == OP_LAUNCH) {
        rt = op->ex ? "cudaLaunchKernelExC" : "cudaLaunchKernel";
        cbid = op->ex ? 430 : 211;
    } else if (op->kind == OP_MEMCPY) {
        rt = "cudaMemcpyAsync";
        cbid = 41;
    } else {
        rt = "cudaMemsetAsync";
        cbid = 51;
    }
    if (keep_ts(s, lts)) {
        runtime_ev(s, rt, lts, ldur, ext, cbid, corr);
        flow(s, 1, corr, s->pid, th->tid, lts);
    }
    if (!keep_ts(s, kst))
        return;
    tlm_synth_out *o = s->out;
    if (op->kind == OP_LAUNCH) {
        kernel_ev(s, op->name, STREAM_COMPUTE, kst, dur, ext, corr,
                  op->grid, op->block, op->regs, op->smem);
        PUTL(o, "}}");
    } else {
        ev_x(s, op->kind == OP_MEMCPY ? "gpu_memcpy" : "gpu_memset",
             op->name, s->dev, STREAM_COMPUTE, kst, dur);
        PUTL(o, ", \"args\": {");
        key_i(o, "External id", ext, 1);
        key_i(o, "device", s->dev, 0);
        PUTL(o, ", \"context\": 1");
        key_i(o, "stream", STREAM_COMPUTE, 0);
        key_i(o, "correlation", corr, 0);
        key_i(o, "bytes", op->n, 0);
        PUTL(o, ", \"memory bandwidth (GB/s)\": ");
        put_fixed6(o, op->n, dur);
        PUTL(o, "}}");
    }
    flow(s, 0, corr, s->dev, STREAM_COMPUTE, kst);
}

/* Moves on to thread `to` (backward engine 1, main 0): it starts no
 * earlier than the current thread's cursor, after a delay in [lo, hi]. */
static void switch_thread(rs *s, int to, int64_t lo, int64_t hi)
{
    const thr *th = &s->th[s->cur];
    if (s->th[to].t < th->t)
        s->th[to].t = th->t;
    s->th[to].t += rng_range(&s->r, lo, hi);
    s->cur = to;
}

static void exec_op(rs *s, const syn_prog *p, const syn_op *op)
{
    thr *th = &s->th[s->cur];
    switch (op->kind) {
    case OP_PY:
    case OP_MOD:
    case OP_ANN:
    case OP_CPU:
    case OP_BWDFN:
        frame_push(s, op);
        break;
    case OP_POP:
        frame_pop(s, p);
        break;
    case OP_LAUNCH:
    case OP_MEMCPY:
    case OP_MEMSET:
        gpu_work(s, op);
        break;
    case OP_BWD_BEGIN:
        switch_thread(s, 1, 5000, 15000);
        break;
    case OP_BWD_END:
        switch_thread(s, 0, 2000, 6000);
        break;
    case OP_WAIT: {
        th->t += rng_range(&s->r, 500, 1500);
        int64_t ts = th->t;
        int64_t dur = rng_range(&s->r, 1000, 2500);
        int64_t corr = ++s->corr;
        th->t += dur;
        if (s->sfree[0] < s->sfree[1 + op->ckind])
            s->sfree[0] = s->sfree[1 + op->ckind];
        if (keep_ts(s, ts))
            runtime_ev(s, op->name, ts, dur, top_ext(th), 147, corr);
        break;
    }
    case OP_SYNC: {
        th->t += rng_range(&s->r, 500, 1500);
        int64_t ts = th->t;
        int64_t end = ts + rng_range(&s->r, 2000, 4000);
        int64_t mx = 0;
        for (int i = 0; i < 1 + SYN_PG_KINDS; i++)
            if (s->sfree[i] > mx)
                mx = s->sfree[i];
        mx += rng_range(&s->r, 2000, 5000);
        if (mx > end)
            end = mx;
        int64_t corr = ++s->corr;
        th->t = end;
        note_t(s, end);
        if (keep_ts(s, ts))
            runtime_ev(s, op->name, ts, end - ts, top_ext(th), 131, corr);
        break;
    }
    default:
        break;
    }
}

/* MARK: - file header and footer */

static void meta_ev(rs *s, const char *name, int64_t pid, int64_t tid,
                    int64_t ts, const char *key, const char *sval,
                    int64_t ival)
{
    tlm_synth_out *o = s->out;
    if (s->n_ev)
        PUTL(o, ",\n  {\"name\": ");
    else
        PUTL(o, "\n  {\"name\": ");
    s->n_ev++;
    tlm_synth_putq(o, name);
    PUTL(o, ", \"ph\": \"M\", \"ts\": ");
    tlm_synth_putus(o, ts + s->off);
    PUTL(o, ", \"pid\": ");
    tlm_synth_puti(o, pid);
    PUTL(o, ", \"tid\": ");
    tlm_synth_puti(o, tid);
    PUTL(o, ", \"args\": {\"");
    tlm_synth_puts(o, key);
    PUTL(o, "\": ");
    if (sval)
        tlm_synth_putq(o, sval);
    else
        tlm_synth_puti(o, ival);
    PUTL(o, "}}");
}

/* The distributedInfo member (rank, world, process groups), left out
 * with no_dist_info. */
static void put_dist_info(tlm_synth_out *o, const rs *s, const syn_job *job,
                          const tlm_synth_truth *t)
{
    PUTL(o, "\n  \"distributedInfo\": {\"backend\": \"nccl\", "
            "\"rank\": ");
    tlm_synth_puti(o, s->rank);
    PUTL(o, ", \"world_size\": ");
    tlm_synth_puti(o, job->o.world_size);
    if (job->o.no_group_meta) {
        PUTL(o, "},");
        return;
    }
    {
        /* schema 1: the Apr 2024 form (uid, no pg_desc) */
        PUTL(o, ", \"pg_count\": ");
        tlm_synth_puti(o, (int64_t)t->n_pgs);
        PUTL(o, ", \"pg_config\": [");
        for (size_t i = 0; i < t->n_pgs; i++) {
            const tlm_synth_pg *pg = &t->pgs[i];
            tlm_synth_puts(o, i ? ", {\"pg_name\": " : "{\"pg_name\": ");
            tlm_synth_putq(o, pg->name);
            if (job->o.schema >= 2) {
                PUTL(o, ", \"pg_desc\": ");
                tlm_synth_putq(o, pg->desc);
            } else {
                PUTL(o, ", \"uid\": ");
                tlm_synth_puti(o, (int64_t)i);
            }
            PUTL(o, ", \"backend_config\": \"cuda:nccl\", \"pg_size\": ");
            tlm_synth_puti(o, pg->size);
            PUTL(o, ", \"ranks\": [");
            put_ints(o, pg->ranks, pg->size);
            PUTL(o, "]}");
        }
        if (job->o.schema >= 2)
            PUTL(o, "], \"nccl_version\": \"2.21.5\"");
        else
            PUTL(o, "], \"nccl_version\": \"2.19.3\"");
    }
    PUTL(o, "},");
}

static void write_header(const syn_job *job, rs *s, int64_t ts)
{
    tlm_synth_out *o = s->out;
    const tlm_synth_truth *t = job->t;
    int gpn = job->o.gpus_per_node;
    PUTL(o, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
    for (int d = 0; d < gpn; d++) {
        tlm_synth_puts(o, d ? ",\n    {\"id\": " : "\n    {\"id\": ");
        tlm_synth_puti(o, d);
        PUTL(o, ", \"name\": ");
        tlm_synth_putq(o, job->o.device_name ? job->o.device_name
                                             : "NVIDIA H100 80GB HBM3");
        PUTL(o, ", \"totalGlobalMem\": "
                "85018279936, \"computeMajor\": 9, \"computeMinor\": 0, "
                "\"maxThreadsPerBlock\": 1024, "
                "\"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": "
                "65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, "
                "\"numSms\": 132, \"regsPerMultiprocessor\": 65536, "
                "\"sharedMemPerBlockOptin\": 232448, "
                "\"sharedMemPerMultiprocessor\": 233472}");
    }
    PUTL(o, "\n  ],");
    if (!job->o.no_dist_info)
        put_dist_info(o, s, job, t);
    PUTL(o, "\n  \"record_shapes\": 1,\n  \"with_stack\": 1,\n"
            "  \"with_modules\": 1,\n  \"traceEvents\": [");

    char buf[64];
    meta_ev(s, "process_name", s->pid, 0, ts, "name", "python3", 0);
    meta_ev(s, "process_labels", s->pid, 0, ts, "labels", "CPU", 0);
    meta_ev(s, "process_sort_index", s->pid, 0, ts, "sort_index", NULL,
            s->pid);
    meta_ev(s, "process_name", s->dev, 0, ts, "name", "python3", 0);
    snprintf(buf, sizeof buf, "GPU %d", s->dev);
    meta_ev(s, "process_labels", s->dev, 0, ts, "labels", buf, 0);
    meta_ev(s, "process_sort_index", s->dev, 0, ts, "sort_index", NULL,
            5000000 + s->dev);
    for (int i = 0; i < 2; i++) {
        snprintf(buf, sizeof buf, "thread %lld (%s)",
                 (long long)s->th[i].tid, i ? "pt_autograd_0" : "python3");
        meta_ev(s, "thread_name", s->pid, s->th[i].tid, ts, "name", buf, 0);
        meta_ev(s, "thread_sort_index", s->pid, s->th[i].tid, ts,
                "sort_index", NULL, s->th[i].tid);
    }
    for (int k = -1; k < SYN_PG_KINDS; k++) {
        if (k >= 0 && job->gidx[s->rank * SYN_PG_KINDS + k] < 0)
            continue;
        int st = k < 0 ? STREAM_COMPUTE : stream_of(k);
        snprintf(buf, sizeof buf, "stream %d ", st);
        meta_ev(s, "thread_name", s->dev, st, ts, "name", buf, 0);
        meta_ev(s, "thread_sort_index", s->dev, st, ts, "sort_index", NULL,
                st);
    }
}

static void write_footer(const syn_job *job, rs *s)
{
    tlm_synth_out *o = s->out;
    PUTL(o, "\n  ],\n  \"traceName\": ");
    tlm_synth_putq(o, job->t->ranks[s->rank].trace_file);
    PUTL(o, ",\n  \"displayTimeUnit\": \"ms\",\n"
            "  \"baseTimeNanoseconds\": ");
    tlm_synth_puti(o, job->t->base_time_ns);
    PUTL(o, "\n}\n");
}

/* MARK: - the engine */

static tlm_status note_member(syn_job *job, int rank, size_t member)
{
    size_t *cap = &job->rank_capmem[rank];
    if (tlm_grow((void **)&job->rank_members[rank], cap,
                 job->rank_nmem[rank] + 1, sizeof(size_t), 1024))
        return TLM_ENOMEM;
    job->rank_members[rank][job->rank_nmem[rank]++] = member;
    return TLM_OK;
}

/* --slow_kernel: the matching launches of the program run longer; the
 * engine lays out the GPU stream from these durations, so everything
 * after them moves. */
static void slow_kernels(const syn_job *job, syn_prog *p)
{
    const char *sub = job->o.slow_kernel;
    double f = job->o.slow_kernel_factor;
    for (size_t i = 0; sub && i < p->n; i++) {
        syn_op *op = &p->ops[i];
        if (op->kind == OP_LAUNCH && op->name && strstr(op->name, sub))
            op->dur = (int64_t)((double)op->dur * f + 0.5);
    }
}

/* --straggler_cause slow_kernels: marks each launch that is the last GPU
 * work before a blocking collective (no other collective, copy, wait or
 * sync between), whose kernel the straggler then runs longer. */
static void mark_pre(syn_prog *p)
{
    int next_blocking = 0;
    for (size_t i = p->n; i-- > 0;) {
        syn_op *op = &p->ops[i];
        if (op->kind == OP_COLL) {
            cinfo ci;
            coll_info(op->ckind, 0, &ci);
            next_blocking = ci.blocking;
        } else if (op->kind == OP_LAUNCH) {
            op->pre = next_blocking;
            next_blocking = 0;
        } else if (op->kind == OP_MEMCPY || op->kind == OP_MEMSET ||
                   op->kind == OP_WAIT || op->kind == OP_SYNC) {
            next_blocking = 0;
        }
    }
}

/* The injection of --straggler_cause into the straggler's state. */
static void cause_init(const syn_job *job, rs *s)
{
    if (s->rank != job->o.straggler_rank)
        return;
    int64_t d = job->o.straggler_delay_ns;
    switch (job->o.straggler_cause) {
    case TLM_SYNTH_CAUSE_SLOW_KERNELS:
        s->slow_extra = d;
        break;
    case TLM_SYNTH_CAUSE_HOST_BUSY:
        s->host_extra = d;
        break;
    case TLM_SYNTH_CAUSE_LATE_LAUNCH:
        s->late_extra = d;
        break;
    default:
        break;
    }
}

tlm_status tlm_synth_engine(syn_job *job, int mode, const int *ranks, int n,
                            int steps, tlm_synth_out **outs,
                            uint64_t *step_bytes)
{
    tlm_status st = TLM_OK;
    syn_prog p;
    syn_names nm;
    memset(&p, 0, sizeof p);
    memset(&nm, 0, sizeof nm);
    rs *ss = calloc((size_t)n, sizeof *ss);
    if (!ss)
        return TLM_ENOMEM;
    build_program(job, &p, &nm);
    slow_kernels(job, &p);
    mark_pre(&p);
    if (p.fail) {
        st = TLM_ENOMEM;
        goto done;
    }
    tlm_synth_truth *t = job->t;
    for (int i = 0; i < n; i++) {
        rs *s = &ss[i];
        int r = ranks[i];
        s->rank = r;
        rng_seed(&s->r, job->o.seed, (uint64_t)r + 1);
        s->pid = 2590000 + (int64_t)r * 97;
        s->th[0].tid = s->pid;
        s->th[1].tid = s->pid + 43;
        s->dev = r % job->o.gpus_per_node;
        s->off = t->ranks[r].clock_offset_ns;
        cause_init(job, s);
        int64_t start = job->t0 + rng_range(&s->r, 0, 20000);
        s->th[0].t = start;
        s->th[1].t = start;
        for (int k = 0; k < 1 + SYN_PG_KINDS; k++)
            s->sfree[k] = start;
        s->tmin = start;
        s->tmax = start;
        s->ws = INT64_MIN;
        s->we = INT64_MAX;
        s->out = outs ? outs[i] : NULL;
        if (s->out && job->clipped[r]) {
            s->ws = t->ranks[r].window_start_ns;
            s->we = t->ranks[r].window_end_ns;
        }
        if (s->out)
            write_header(job, s, job->t0);
        if (step_bytes)
            step_bytes[(size_t)i * (size_t)(steps + 1)] =
                s->out ? s->out->total : 0;
    }

    size_t base = 0;
    for (int step = 0; step < steps; step++) {
        for (int i = 0; i < n; i++)
            ss[i].step = step;
        for (size_t oi = 0; oi < p.n; oi++) {
            const syn_op *op = &p.ops[oi];
            if (op->kind != OP_COLL) {
                for (int i = 0; i < n; i++)
                    exec_op(&ss[i], &p, op);
                continue;
            }
            cinfo ci;
            coll_info(op->ckind, 0, &ci);
            int k = ci.pgkind;
            int ng = job->n_groups[k];
            if (ng == 0)
                continue;
            if (mode == SYN_RESOLVE) {
                assert(base == t->n_colls);
                st = colls_create(job, op->ckind, op->n, step);
                if (st != TLM_OK)
                    goto done;
            }
            for (int i = 0; i < n; i++) {
                int g = job->gidx[ss[i].rank * SYN_PG_KINDS + k];
                if (g < 0)
                    continue;
                coll_arrive(job, &ss[i], mode, op, base + (size_t)g);
                if (mode == SYN_RESOLVE) {
                    st = note_member(job, ss[i].rank, ss[i].pc.member);
                    if (st != TLM_OK)
                        goto done;
                }
            }
            if (mode == SYN_RESOLVE)
                for (int g = 0; g < ng; g++)
                    coll_resolve(job, base + (size_t)g);
            for (int i = 0; i < n; i++)
                if (ss[i].pc.active)
                    coll_finish(job, &ss[i], op);
            base += (size_t)ng;
        }
        if (step_bytes)
            for (int i = 0; i < n; i++)
                step_bytes[(size_t)i * (size_t)(steps + 1) + (size_t)step +
                           1] = ss[i].out ? ss[i].out->total : 0;
    }
    for (int i = 0; i < n; i++) {
        rs *s = &ss[i];
        tlm_synth_rank *tr = &t->ranks[s->rank];
        if (s->out) {
            write_footer(job, s);
            tr->n_events = s->n_ev;
            tr->n_bytes = s->out->total;
        }
        if (mode == SYN_RESOLVE) {
            tr->n_colls = s->kcoll;
            tr->window_start_ns = s->tmin;
            tr->window_end_ns = s->tmax;
        }
    }
done:
    names_free(&nm);
    free(p.ops);
    free(ss);
    return st;
}

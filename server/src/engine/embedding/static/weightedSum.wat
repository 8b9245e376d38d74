;; The static code model's weighted row sum (embedding/static/table.ts), with WebAssembly SIMD.
;;
;;   sum(rows, weights, n, out, dims)
;;
;; For k = 0 … n−1 in order and every j < dims: out[j] ← f32(out[j] + f32(weights[k] × row_k[j])), where row_k is the
;; int8 row at byte address rows[k] (i32 addresses), weights[k] an f32 and out an f32 array, all in the imported
;; memory. dims must be a multiple of 32. f32 arithmetic without fused multiply-add, each element's rows summed in
;; order: the same bits as that sum written element by element (the JavaScript fallback in table.ts).
;;
;; The dimensions are taken 32 at a time (eight f32x4 accumulators held in locals while every row passes), so each
;; output element is read and written once per call. Regenerate weightedSumWasm.ts after editing:
;; `node scripts/build-wasm.mjs`.
(module
  (import "env" "memory" (memory 1))
  (func (export "sum") (param $rows i32) (param $weights i32) (param $n i32) (param $out i32) (param $dims i32)
    (local $b i32) (local $k i32) (local $o i32) (local $p i32)
    (local $w v128) (local $x v128) (local $y v128) (local $lo v128) (local $hi v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.ge_u (local.get $b) (local.get $dims)))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $b) (i32.const 2))))
        (local.set $a0 (v128.load offset=0 (local.get $o)))
        (local.set $a1 (v128.load offset=16 (local.get $o)))
        (local.set $a2 (v128.load offset=32 (local.get $o)))
        (local.set $a3 (v128.load offset=48 (local.get $o)))
        (local.set $a4 (v128.load offset=64 (local.get $o)))
        (local.set $a5 (v128.load offset=80 (local.get $o)))
        (local.set $a6 (v128.load offset=96 (local.get $o)))
        (local.set $a7 (v128.load offset=112 (local.get $o)))
        (local.set $k (i32.const 0))
        (block $rowsDone
          (loop $each
            (br_if $rowsDone (i32.ge_u (local.get $k) (local.get $n)))
            (local.set $w (f32x4.splat (f32.load (i32.add (local.get $weights) (i32.shl (local.get $k) (i32.const 2))))))
            (local.set $p (i32.add (i32.load (i32.add (local.get $rows) (i32.shl (local.get $k) (i32.const 2)))) (local.get $b)))
            (local.set $x (v128.load offset=0 (local.get $p)))
            (local.set $y (v128.load offset=16 (local.get $p)))
            (local.set $lo (i16x8.extend_low_i8x16_s (local.get $x)))
            (local.set $hi (i16x8.extend_high_i8x16_s (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $lo))) (local.get $w))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $lo))) (local.get $w))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $hi))) (local.get $w))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $hi))) (local.get $w))))
            (local.set $lo (i16x8.extend_low_i8x16_s (local.get $y)))
            (local.set $hi (i16x8.extend_high_i8x16_s (local.get $y)))
            (local.set $a4 (f32x4.add (local.get $a4) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $lo))) (local.get $w))))
            (local.set $a5 (f32x4.add (local.get $a5) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $lo))) (local.get $w))))
            (local.set $a6 (f32x4.add (local.get $a6) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $hi))) (local.get $w))))
            (local.set $a7 (f32x4.add (local.get $a7) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $hi))) (local.get $w))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $each)))
        (v128.store offset=0 (local.get $o) (local.get $a0))
        (v128.store offset=16 (local.get $o) (local.get $a1))
        (v128.store offset=32 (local.get $o) (local.get $a2))
        (v128.store offset=48 (local.get $o) (local.get $a3))
        (v128.store offset=64 (local.get $o) (local.get $a4))
        (v128.store offset=80 (local.get $o) (local.get $a5))
        (v128.store offset=96 (local.get $o) (local.get $a6))
        (v128.store offset=112 (local.get $o) (local.get $a7))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (br $blocks)))))

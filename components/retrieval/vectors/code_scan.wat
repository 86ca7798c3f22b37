;; The vector arm's scan of 8-bit codes (`_vector_codes.ts`), 16 vectors at a
;; time. Built into `_code_scan_wasm.ts` by `deno task build:wasm`.
(module
  (memory (export "memory") 1)

  ;; For each vector i below `stride` (a multiple of 16) of a block of codes
  ;; laid out dimension by dimension (code of dimension d of vector i at
  ;; codes + d * stride + i), out[i] = the sum over j below n of
  ;; weight j * code of dimension dims[j]: dims are n 32-bit integers, n even,
  ;; and the weights n / 2 32-bit integers, each two 16-bit weights (that of
  ;; dims[2k] in the low half of integer k, that of dims[2k + 1] in the high);
  ;; out is `stride` 32-bit integers. The sums of 16 vectors stay in registers
  ;; while every dimension is added, two dimensions at a time: their codes of
  ;; a vector side by side, multiplied by their weights and added in one
  ;; instruction (i32x4.dot_i16x8_s) rather than two.
  (func (export "dots")
    (param $codes i32) (param $stride i32) (param $dims i32) (param $weights i32)
    (param $n i32) (param $out i32)
    (local $block i32) (local $base i32) (local $j i32) (local $at i32)
    (local $pair v128) (local $low v128) (local $high v128) (local $weight v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (block $blocks_done
      (loop $blocks
        (br_if $blocks_done (i32.ge_u (local.get $block) (local.get $stride)))
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $s2 (v128.const i32x4 0 0 0 0))
        (local.set $s3 (v128.const i32x4 0 0 0 0))
        (local.set $base (i32.add (local.get $codes) (local.get $block)))
        (local.set $j (i32.const 0))
        (block $dims_done
          (loop $dimensions
            (br_if $dims_done (i32.ge_u (local.get $j) (local.get $n)))
            (local.set $at (i32.add (local.get $dims) (i32.shl (local.get $j) (i32.const 2))))
            (local.set $pair
              (v128.load
                (i32.add (local.get $base)
                  (i32.mul (i32.load (local.get $at)) (local.get $stride)))))
            (local.set $high
              (v128.load
                (i32.add (local.get $base)
                  (i32.mul (i32.load offset=4 (local.get $at)) (local.get $stride)))))
            ;; The two dimensions' codes of vectors 0-7, then of 8-15, side by side.
            (local.set $low
              (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23
                (local.get $pair) (local.get $high)))
            (local.set $high
              (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31
                (local.get $pair) (local.get $high)))
            (local.set $weight
              (i32x4.splat
                (i32.load (i32.add (local.get $weights) (i32.shl (local.get $j) (i32.const 1))))))
            (local.set $s0 (i32x4.add (local.get $s0)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $low)) (local.get $weight))))
            (local.set $s1 (i32x4.add (local.get $s1)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $low)) (local.get $weight))))
            (local.set $s2 (i32x4.add (local.get $s2)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $high)) (local.get $weight))))
            (local.set $s3 (i32x4.add (local.get $s3)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $high)) (local.get $weight))))
            (local.set $j (i32.add (local.get $j) (i32.const 2)))
            (br $dimensions)))
        (local.set $at (i32.add (local.get $out) (i32.shl (local.get $block) (i32.const 2))))
        (v128.store offset=0 (local.get $at) (local.get $s0))
        (v128.store offset=16 (local.get $at) (local.get $s1))
        (v128.store offset=32 (local.get $at) (local.get $s2))
        (v128.store offset=48 (local.get $at) (local.get $s3))
        (local.set $block (i32.add (local.get $block) (i32.const 16)))
        (br $blocks)))))

// Point renderers of the page: WebGL2 (one draw call of n points, positions uploaded once per
// change as float32 pairs, colours as RGBA bytes) and, where WebGL2 is missing, canvas 2D
// (points stamped into one ImageData per frame). Both take the same calls:
//
//   r.setPositions(Float32Array n×dim, dim = 2 | 3)  r.setColours(Uint32Array RGBA, order)  r.setFlags(Uint8Array|null)
//   r.draw({cx, cy, k} | {P, near, far}, W, H, size, fast)   r.kind ('webgl2' | '2d')
//
// A 3-D view is drawn through its camera: P is the 3×4 matrix (row-major, 12 numbers) that maps
// (x, y, z, 1) to (u, v, w), the point going to the pixel (u/w, v/w) at depth w (perspective:
// app.js builds P from the orbit); nearer points hide farther ones (a depth buffer in both
// renderers), and near..far bounds the depths of the points.
//
// With fast set (the view is moving: a pan or a zoom under way) the WebGL2 renderer does not
// redraw the points: it shows the last full frame, copied into a texture when the motion
// starts, shifted and scaled to the new view — O(pixels) instead of O(n), which is what makes a million points pan smoothly in
// software GL (SwiftShader takes about a second per million points on the loaded test machine).
// Areas the last frame did not cover stay blank until the motion ends and the page redraws.
//
// order (Int32Array or null) is the drawing order, later on top; flags[i] = 0 dims record i
// (not selected) and draws it below every record of flag 1, whatever the order.
//
// Why hand-written shaders and no library: the page needs one kind of mark (a round point of
// one size), per-point colour and a dimmed state. That is ~40 lines of GLSL and buffer code,
// against regl-scatterplot's ~100 kB bundle (regl, pub-sub, kdbush, a build step with esbuild
// and a vendored copy to keep up to date) for features the page does not use; the binary
// embeds the assets and must build and run with no network or npm, so a library would have to
// be committed bundled anyway.

const VS = `#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_col;
layout(location = 2) in float a_flag;
uniform vec2 u_c;
uniform vec2 u_s;
uniform float u_size;
out vec4 v_col;
void main() {
  // Dimmed points lie behind (depth 0.5) the others (0): the depth test keeps them under.
  gl_Position = vec4((a_pos - u_c) * u_s, a_flag > 0.5 ? 0.0 : 0.5, 1.0);
  gl_PointSize = u_size;
  v_col = a_flag > 0.5 ? a_col : vec4(mix(a_col.rgb, vec3(1.0), 0.82), 1.0);
}`;

// The 3-D points: P·(x, y, z, 1) = (u, v, w) puts a point at pixel (u/w, v/w); in clip coordinates
// (2u/W − w, w − 2v/H, ·, w), the depth w mapped linearly from near..far to −1..1 (so that the
// depth test compares w itself, as the canvas renderer does).
const VS3 = `#version 300 es
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_col;
layout(location = 2) in float a_flag;
uniform vec4 u_p0, u_p1, u_p2;
uniform vec2 u_wh;
uniform vec2 u_depth;
uniform float u_size;
out vec4 v_col;
void main() {
  vec4 h = vec4(a_pos, 1.0);
  float u = dot(u_p0, h), v = dot(u_p1, h), w = dot(u_p2, h);
  float z = (w - u_depth.x) / (u_depth.y - u_depth.x) * 2.0 - 1.0;
  gl_Position = vec4(2.0 * u / u_wh.x - w, w - 2.0 * v / u_wh.y, z * w, w);
  gl_PointSize = u_size;
  v_col = a_flag > 0.5 ? a_col : vec4(mix(a_col.rgb, vec3(1.0), 0.82), 1.0);
}`;

const FS = `#version 300 es
precision mediump float;
in vec4 v_col;
uniform float u_round;
out vec4 o;
void main() {
  vec2 d = gl_PointCoord - 0.5;
  if (u_round > 0.5 && dot(d, d) > 0.25) discard;
  o = v_col;
}`;

// The blit: the cached frame as a quad over the data rectangle it showed.
const BVS = `#version 300 es
in vec2 a_corner;
uniform vec2 u_lo, u_hi, u_c, u_s;
out vec2 v_uv;
void main() {
  gl_Position = vec4((mix(u_lo, u_hi, a_corner) - u_c) * u_s, 0.0, 1.0);
  v_uv = a_corner;
}`;

const BFS = `#version 300 es
precision mediump float;
in vec2 v_uv;
uniform sampler2D u_tex;
out vec4 o;
void main() { o = texture(u_tex, v_uv); }`;

function compile(gl, type, src) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error('shader: ' + gl.getShaderInfoLog(s));
  return s;
}

// glRenderer returns a WebGL2 renderer on canvas, or null when the browser has no WebGL2.
export function glRenderer(canvas) {
  const gl = canvas.getContext('webgl2', { antialias: false, alpha: false, depth: true, preserveDrawingBuffer: true });
  if (!gl) return null;
  const link = (vs, fs) => {
    const prog = gl.createProgram();
    gl.attachShader(prog, compile(gl, gl.VERTEX_SHADER, vs));
    gl.attachShader(prog, compile(gl, gl.FRAGMENT_SHADER, fs));
    gl.linkProgram(prog);
    if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('program: ' + gl.getProgramInfoLog(prog));
    return prog;
  };
  const prog = link(VS, FS), bprog = link(BVS, BFS), prog3 = link(VS3, FS);
  const u = (name) => gl.getUniformLocation(prog, name);
  const U = { c: u('u_c'), s: u('u_s'), size: u('u_size'), round: u('u_round') };
  const u3 = (name) => gl.getUniformLocation(prog3, name);
  const U3 = { p0: u3('u_p0'), p1: u3('u_p1'), p2: u3('u_p2'), wh: u3('u_wh'), depth: u3('u_depth'), size: u3('u_size'), round: u3('u_round') };
  const bu = (name) => gl.getUniformLocation(bprog, name);
  const B = { lo: bu('u_lo'), hi: bu('u_hi'), c: bu('u_c'), s: bu('u_s'), tex: bu('u_tex') };
  // The blit's quad, and the frame buffer every full frame is drawn into first.
  const bvao = gl.createVertexArray();
  gl.bindVertexArray(bvao);
  gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([0, 0, 1, 0, 0, 1, 1, 1]), gl.STATIC_DRAW);
  const ca = gl.getAttribLocation(bprog, 'a_corner');
  gl.enableVertexAttribArray(ca);
  gl.vertexAttribPointer(ca, 2, gl.FLOAT, false, 0, 0);
  gl.bindVertexArray(null);
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  // last is the view of the last full frame, which the canvas keeps (preserveDrawingBuffer);
  // cached that of the copy of it in tex (null: none, or stale).
  let last = null;
  let cached = null;
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const buf = (attr, size, type, norm) => {
    const b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.enableVertexAttribArray(attr);
    gl.vertexAttribPointer(attr, size, type, norm, 0, 0);
    return b;
  };
  const pos = buf(0, 2, gl.FLOAT, false); // the locations are fixed in both vertex shaders
  const col = buf(1, 4, gl.UNSIGNED_BYTE, true);
  const flag = buf(2, 1, gl.UNSIGNED_BYTE, false);
  const elems = gl.createBuffer();
  gl.bindVertexArray(null);
  let n = 0, dim = 2, ordered = false, flagsN = 0, flagged = false;
  // points3 draws every point of a 3-D view, nearest on top.
  const points3 = (v, W, H, size) => {
    gl.viewport(0, 0, W, H);
    gl.clearColor(1, 1, 1, 1);
    gl.clearDepth(1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LESS);
    gl.useProgram(prog3);
    const P = v.P;
    gl.uniform4f(U3.p0, P[0], P[1], P[2], P[3]);
    gl.uniform4f(U3.p1, P[4], P[5], P[6], P[7]);
    gl.uniform4f(U3.p2, P[8], P[9], P[10], P[11]);
    gl.uniform2f(U3.wh, W, H);
    gl.uniform2f(U3.depth, v.near, v.far);
    gl.uniform1f(U3.size, size);
    gl.uniform1f(U3.round, size > 2.5 ? 1 : 0);
    gl.bindVertexArray(vao);
    if (ordered) gl.drawElements(gl.POINTS, n, gl.UNSIGNED_INT, 0);
    else gl.drawArrays(gl.POINTS, 0, n);
    gl.bindVertexArray(null);
  };
  // points draws every point.
  const points = (v, W, H, size) => {
    gl.viewport(0, 0, W, H);
    gl.clearColor(1, 1, 1, 1);
    gl.clearDepth(1);
    gl.clear(flagged ? gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT : gl.COLOR_BUFFER_BIT); // a pass fewer in software
    // The depth test only matters when some points are dimmed; software GL pays for it.
    if (flagged) gl.enable(gl.DEPTH_TEST); else gl.disable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LEQUAL); // equal depth: the later point wins, as in the 2-D order
    gl.useProgram(prog);
    gl.uniform2f(U.c, v.cx, v.cy);
    gl.uniform2f(U.s, 2 * v.k / W, 2 * v.k / H);
    gl.uniform1f(U.size, size);
    gl.uniform1f(U.round, size > 2.5 ? 1 : 0);
    gl.bindVertexArray(vao);
    if (ordered) gl.drawElements(gl.POINTS, n, gl.UNSIGNED_INT, 0);
    else gl.drawArrays(gl.POINTS, 0, n);
    gl.bindVertexArray(null);
  };
  // blit shows the texture's frame, drawn for the view cached, in view v.
  const blit = (v, W, H) => {
    gl.viewport(0, 0, W, H);
    gl.disable(gl.DEPTH_TEST);
    gl.clearColor(1, 1, 1, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.useProgram(bprog);
    const c = cached, hw = W / 2 / c.k, hh = H / 2 / c.k;
    gl.uniform2f(B.lo, c.cx - hw, c.cy - hh);
    gl.uniform2f(B.hi, c.cx + hw, c.cy + hh);
    gl.uniform2f(B.c, v.cx, v.cy);
    gl.uniform2f(B.s, 2 * v.k / W, 2 * v.k / H);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.uniform1i(B.tex, 0);
    gl.bindVertexArray(bvao);
    gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
    gl.bindVertexArray(null);
  };
  const r = {
    kind: 'webgl2', gl,
    setPositions(p, d = 2) {
      dim = d;
      n = p.length / dim;
      gl.bindVertexArray(vao);
      gl.bindBuffer(gl.ARRAY_BUFFER, pos);
      gl.vertexAttribPointer(0, dim, gl.FLOAT, false, 0, 0);
      gl.bufferData(gl.ARRAY_BUFFER, p, gl.DYNAMIC_DRAW);
      gl.bindVertexArray(null);
      if (flagsN !== n) r.setFlags(null);
      cached = last = null;
    },
    setColours(c, order) {
      gl.bindBuffer(gl.ARRAY_BUFFER, col);
      gl.bufferData(gl.ARRAY_BUFFER, new Uint8Array(c.buffer, c.byteOffset, c.byteLength), gl.STATIC_DRAW);
      ordered = !!order;
      cached = last = null;
      if (order) {
        gl.bindVertexArray(vao);
        gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, elems);
        gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, new Uint32Array(order.buffer, order.byteOffset, order.length), gl.STATIC_DRAW);
        gl.bindVertexArray(null);
      }
    },
    setFlags(f) {
      gl.bindBuffer(gl.ARRAY_BUFFER, flag);
      gl.bufferData(gl.ARRAY_BUFFER, f || new Uint8Array(n).fill(1), gl.DYNAMIC_DRAW);
      flagsN = n;
      flagged = !!f;
      cached = last = null;
    },
    draw(v, W, H, size, fast) {
      if (v.P) { // 3-D: an orbit moves every point differently, so every frame is a full one
        points3(v, W, H, size);
        cached = last = null;
        return;
      }
      if (fast && !(cached && cached.W === W && cached.H === H) && last && last.W === W && last.H === H) {
        // The motion starts: copy the last full frame, which the canvas still holds.
        gl.bindTexture(gl.TEXTURE_2D, tex);
        gl.copyTexImage2D(gl.TEXTURE_2D, 0, gl.RGB, 0, 0, W, H, 0);
        cached = last;
      }
      if (fast && cached && cached.W === W && cached.H === H) {
        blit(v, W, H);
        last = null; // the canvas holds a moved copy now, not a full frame
        return;
      }
      points(v, W, H, size);
      last = { ...v, W, H };
      cached = null;
    },
    // finish returns once the frame is rendered: reading a pixel back waits for it (Chromium's
    // gl.finish need not).
    finish() { gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4)); },
  };
  return r;
}

// canvasRenderer returns the canvas-2D renderer: each frame stamps every point into one
// ImageData (a few milliseconds for 100,000 points).
export function canvasRenderer(canvas) {
  const ctx = canvas.getContext('2d');
  let p = new Float32Array(0), col = new Uint32Array(0), dim = new Uint32Array(0), order = null, flags = null, seq = null;
  let img = null, px = null, d = 2, zbuf = null;
  // last: the view of the last full frame; cache: a canvas holding it while a motion lasts.
  let last = null, cache = null, cached = null;
  // sequence: the drawing order with the dimmed records first (null: records in order). It
  // depends on the order and the flags, not on the positions.
  const sequence = (n) => {
    if (!flags) return order;
    const out = new Int32Array(n);
    let a = 0;
    for (let m = 0; m < n; m++) { const i = order ? order[m] : m; if (!flags[i]) out[a++] = i; }
    for (let m = 0; m < n; m++) { const i = order ? order[m] : m; if (flags[i]) out[a++] = i; }
    return out;
  };
  let seqValid = false;
  // draw3 draws a 3-D view: each point projected through v.P as app.js and the server project
  // (same operations, same order), kept where it is nearer than what the pixel holds (a depth
  // buffer: no sort, O(n) a frame).
  const draw3 = (v, W, H, size) => {
    cached = last = null;
    if (!img || img.width !== W || img.height !== H) { img = ctx.createImageData(W, H); px = new Uint32Array(img.data.buffer); }
    if (!zbuf || zbuf.length !== W * H) zbuf = new Float32Array(W * H);
    const n = p.length / 3, P = v.P;
    const [a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3] = P;
    px.fill(0xffffffff);
    zbuf.fill(Infinity);
    const R = Math.max(0.5, size / 2), offs = [], cr = Math.ceil(R);
    if (size > 1.5) {
      for (let dy = -cr; dy <= cr; dy++)
        for (let dx = -cr; dx <= cr; dx++)
          if (dx * dx + dy * dy <= R * R) offs.push(dx, dy);
    }
    for (let i = 0; i < n; i++) {
      const x = p[3 * i], y = p[3 * i + 1], z = p[3 * i + 2];
      const w = c0 * x + c1 * y + c2 * z + c3;
      if (!(w > 0)) continue;
      const u = a0 * x + a1 * y + a2 * z + a3, vv = b0 * x + b1 * y + b2 * z + b3;
      const c = flags && !flags[i] ? dim[i] : col[i];
      if (size <= 1.5) {
        const sx = (u / w) | 0, sy = (vv / w) | 0;
        if (sx >= 0 && sx < W && sy >= 0 && sy < H) {
          const q = sy * W + sx;
          if (w < zbuf[q]) { zbuf[q] = w; px[q] = c; }
        }
        continue;
      }
      const sx = Math.round(u / w), sy = Math.round(vv / w);
      if (sx < -cr || sx >= W + cr || sy < -cr || sy >= H + cr) continue;
      for (let o = 0; o < offs.length; o += 2) {
        const xx = sx + offs[o], yy = sy + offs[o + 1];
        if (xx >= 0 && xx < W && yy >= 0 && yy < H) {
          const q = yy * W + xx;
          if (w < zbuf[q]) { zbuf[q] = w; px[q] = c; }
        }
      }
    }
    ctx.putImageData(img, 0, 0);
  };
  return {
    kind: '2d',
    setPositions(q, dims = 2) { p = q; d = dims; last = cached = null; },
    setColours(c, o) {
      col = c; order = o; seqValid = false; last = cached = null;
      dim = c.map((v) => { // 82% of the way to white, as the shader does
        const w = (x) => Math.round(x + 0.82 * (255 - x));
        return (255 << 24 | w(v >> 16 & 255) << 16 | w(v >> 8 & 255) << 8 | w(v & 255)) >>> 0;
      });
    },
    setFlags(f) { flags = f; seqValid = false; last = cached = null; },
    draw(v, W, H, size, fast) {
      if (v.P) { draw3(v, W, H, size); return; }
      if (fast && !cached && last && last.W === W && last.H === H) { // the motion starts
        if (!cache) cache = document.createElement('canvas');
        cache.width = W; cache.height = H;
        cache.getContext('2d').putImageData(img, 0, 0);
        cached = last;
      }
      if (fast && cached && cached.W === W && cached.H === H) { // the last full frame, moved
        const f = v.k / cached.k;
        const x = W / 2 + (cached.cx - W / 2 / cached.k - v.cx) * v.k, y = H / 2 - (cached.cy + H / 2 / cached.k - v.cy) * v.k;
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, W, H);
        ctx.imageSmoothingEnabled = f < 1;
        ctx.drawImage(cache, x, y, W * f, H * f);
        return;
      }
      cached = null;
      last = { ...v, W, H };
      if (!img || img.width !== W || img.height !== H) { img = ctx.createImageData(W, H); px = new Uint32Array(img.data.buffer); }
      const n = p.length / d;
      if (!seqValid) { seq = sequence(n); seqValid = true; }
      px.fill(0xffffffff);
      const hw = W / 2, hh = H / 2, k = v.k, cx = v.cx, cy = v.cy, R = Math.max(0.5, size / 2);
      if (size <= 1.5) { // one pixel a point: the common case of large n
        for (let m = 0; m < n; m++) {
          const i = seq ? seq[m] : m;
          const x = (hw + (p[2 * i] - cx) * k) | 0, y = (hh - (p[2 * i + 1] - cy) * k) | 0;
          if (x >= 0 && x < W && y >= 0 && y < H) px[y * W + x] = flags && !flags[i] ? dim[i] : col[i];
        }
        ctx.putImageData(img, 0, 0);
        return;
      }
      const offs = [], c0 = Math.ceil(R);
      for (let dy = -c0; dy <= c0; dy++)
        for (let dx = -c0; dx <= c0; dx++)
          if (dx * dx + dy * dy <= R * R) offs.push(dx, dy);
      for (let m = 0; m < n; m++) {
        const i = seq ? seq[m] : m;
        const x = Math.round(hw + (p[2 * i] - cx) * k), y = Math.round(hh - (p[2 * i + 1] - cy) * k);
        if (x < -c0 || x >= W + c0 || y < -c0 || y >= H + c0) continue;
        const c = flags && !flags[i] ? dim[i] : col[i];
        if (x >= c0 && x < W - c0 && y >= c0 && y < H - c0) { // wholly inside: no bounds checks
          for (let o = 0; o < offs.length; o += 2) px[(y + offs[o + 1]) * W + x + offs[o]] = c;
          continue;
        }
        for (let o = 0; o < offs.length; o += 2) {
          const xx = x + offs[o], yy = y + offs[o + 1];
          if (xx >= 0 && xx < W && yy >= 0 && yy < H) px[yy * W + xx] = c;
        }
      }
      ctx.putImageData(img, 0, 0);
    },
    finish() {},
  };
}

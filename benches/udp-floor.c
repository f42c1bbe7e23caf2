/* udp-floor.c: the floor of a UDP resolution on this machine, for benches/udp-floor.sh.
 *
 * Answers each Handle protocol request datagram with an answer captured before (a line of
 * hsload's capture file: handle, request hex, response hex), the request id patched in:
 * no store, no decoding, nothing but a table look-up and the kernel's work for the two
 * datagrams. What a server spends above this is its own; what this spends, any server
 * answering over the kernel's UDP pays.
 *
 *   udp-floor MODE PORT CAPTURE.tsv
 *   MODE  mmsg   recvmmsg and sendmmsg, batches of up to 32 (what hdl serve does)
 *         uring  io_uring: one multishot recvmsg into a ring of provided buffers, the
 *                answers as sendmsg entries, submitted together with the wait for more
 *
 * TCP is answered on the same port by a second thread (epoll, non-blocking sockets): a
 * request read whole, its answer written, the connection closed when the client closes it
 * (the client closes first, as the reference's client and hsload do).
 *
 * Requests are told apart by their body (what follows the 20-byte envelope and the
 * 24-byte message header), so a request id or expiration time that differs still finds
 * its answer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#ifdef WITH_URING
#include <liburing.h>
#endif
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define BODY_AT 44
#define BATCH 32
#define DATAGRAM 1024
#define TABLE 4096 /* a power of two, above twice the templates */

struct answer { unsigned char *body; size_t body_len; unsigned char *reply; size_t reply_len; };
static struct answer table[TABLE];

static uint64_t hash(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

static unsigned char *unhex(const char *s, size_t n, size_t *out) {
  unsigned char *b = malloc(n / 2 + 1);
  for (size_t i = 0; i + 1 < n; i += 2) sscanf(s + i, "%2hhx", &b[i / 2]);
  *out = n / 2;
  return b;
}

static void load(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) { perror(path); exit(1); }
  char *line = NULL; size_t cap = 0; ssize_t len; int n = 0;
  while ((len = getline(&line, &cap, f)) > 0) {
    char *req = strchr(line, '\t'); if (!req) continue; req++;
    char *rsp = strchr(req, '\t'); if (!rsp) continue; rsp++;
    size_t rq_len, rs_len;
    unsigned char *rq = unhex(req, (size_t)(rsp - 1 - req), &rq_len);
    size_t rs_hex = strcspn(rsp, "\r\n");
    unsigned char *rs = unhex(rsp, rs_hex, &rs_len);
    if (rq_len <= BODY_AT || rs_len < 20) continue;
    uint64_t h = hash(rq + BODY_AT, rq_len - BODY_AT);
    for (size_t k = h & (TABLE - 1);; k = (k + 1) & (TABLE - 1)) {
      if (!table[k].body) {
        table[k] = (struct answer){ rq + BODY_AT, rq_len - BODY_AT, rs, rs_len };
        n++;
        break;
      }
    }
  }
  fprintf(stderr, "udp-floor: %d answers\n", n);
}

/* The answer to `req`, its request id patched, into `out`: its length, or 0 for none. */
static size_t answer(const unsigned char *req, size_t n, unsigned char *out) {
  if (n <= BODY_AT) return 0;
  uint64_t h = hash(req + BODY_AT, n - BODY_AT);
  for (size_t k = h & (TABLE - 1); table[k].body; k = (k + 1) & (TABLE - 1)) {
    struct answer *a = &table[k];
    if (a->body_len == n - BODY_AT && memcmp(a->body, req + BODY_AT, a->body_len) == 0) {
      memcpy(out, a->reply, a->reply_len);
      memcpy(out + 8, req + 8, 4);
      return a->reply_len;
    }
  }
  return 0;
}

static int bound(int port) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("bind"); exit(1); }
  return fd;
}

static void serve_mmsg(int fd) {
  static unsigned char in[BATCH][DATAGRAM], out[BATCH][DATAGRAM];
  struct sockaddr_in from[BATCH];
  struct iovec iv[BATCH], ov[BATCH];
  struct mmsghdr rm[BATCH], sm[BATCH];
  for (;;) {
    for (int i = 0; i < BATCH; i++) {
      iv[i] = (struct iovec){ in[i], DATAGRAM };
      rm[i].msg_hdr = (struct msghdr){ .msg_name = &from[i], .msg_namelen = sizeof from[i], .msg_iov = &iv[i], .msg_iovlen = 1 };
    }
    int n = recvmmsg(fd, rm, BATCH, MSG_WAITFORONE, NULL);
    if (n <= 0) continue;
    int m = 0;
    for (int i = 0; i < n; i++) {
      size_t len = answer(in[i], rm[i].msg_len, out[m]);
      if (!len) continue;
      ov[m] = (struct iovec){ out[m], len };
      sm[m].msg_hdr = (struct msghdr){ .msg_name = &from[i], .msg_namelen = rm[i].msg_hdr.msg_namelen, .msg_iov = &ov[m], .msg_iovlen = 1 };
      m++;
    }
    if (m) sendmmsg(fd, sm, m, 0);
  }
}

#ifdef WITH_URING
#define ENTRIES 256
#define BUFS 256
#define BUF_SIZE 2048
#define BGID 1
#define SLOTS 256
#define RECV_TAG UINT64_MAX

static void serve_uring(int fd) {
  struct io_uring ring;
  struct io_uring_params p = { 0 };
  const char *fl = getenv("FLOOR_URING_FLAGS");
  /* Task work run only when the thread asks for completions (the default: fewest interruptions), at
   * its next transition to the kernel (coop), or at once (none). */
  if (fl && strcmp(fl, "coop") == 0) p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
  else if (!fl || strcmp(fl, "none") != 0) p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (io_uring_queue_init_params(ENTRIES, &ring, &p) < 0) { perror("io_uring_queue_init"); exit(1); }
  struct io_uring_buf_ring *br = mmap(NULL, BUFS * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE,
                                      MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  struct io_uring_buf_reg reg = { .ring_addr = (unsigned long)br, .ring_entries = BUFS, .bgid = BGID };
  int err = io_uring_register_buf_ring(&ring, &reg, 0);
  if (br == MAP_FAILED || err) { fprintf(stderr, "buf ring: %s\n", strerror(-err)); exit(1); }
  io_uring_buf_ring_init(br);
  static unsigned char bufs[BUFS][BUF_SIZE];
  for (int i = 0; i < BUFS; i++) io_uring_buf_ring_add(br, bufs[i], BUF_SIZE, i, io_uring_buf_ring_mask(BUFS), i);
  io_uring_buf_ring_advance(br, BUFS);

  struct msghdr want = { .msg_namelen = sizeof(struct sockaddr_in) };
  static unsigned char out[SLOTS][DATAGRAM];
  static struct sockaddr_in to[SLOTS];
  static struct iovec ov[SLOTS];
  static struct msghdr sm[SLOTS];
  int free_slots[SLOTS], nfree = SLOTS;
  for (int i = 0; i < SLOTS; i++) free_slots[i] = i;

  int armed = 0;
  for (;;) {
    if (!armed) {
      struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
      io_uring_prep_recvmsg_multishot(sqe, fd, &want, 0);
      sqe->flags |= IOSQE_BUFFER_SELECT;
      sqe->buf_group = BGID;
      io_uring_sqe_set_data64(sqe, RECV_TAG);
      armed = 1;
    }
    io_uring_submit_and_wait(&ring, 1);
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0, recycled = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      seen++;
      uint64_t tag = io_uring_cqe_get_data64(cqe);
      if (tag != RECV_TAG) { free_slots[nfree++] = (int)tag; continue; }
      if (!(cqe->flags & IORING_CQE_F_MORE)) armed = 0;
      if (cqe->res < 0 || !(cqe->flags & IORING_CQE_F_BUFFER)) continue;
      int b = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
      struct io_uring_recvmsg_out *o = io_uring_recvmsg_validate(bufs[b], cqe->res, &want);
      if (o && nfree > 0 && o->namelen >= sizeof(struct sockaddr_in)) {
        int s = free_slots[--nfree];
        size_t len = answer(io_uring_recvmsg_payload(o, &want), io_uring_recvmsg_payload_length(o, cqe->res, &want), out[s]);
        if (len) {
          memcpy(&to[s], io_uring_recvmsg_name(o), sizeof to[s]);
          ov[s] = (struct iovec){ out[s], len };
          sm[s] = (struct msghdr){ .msg_name = &to[s], .msg_namelen = sizeof to[s], .msg_iov = &ov[s], .msg_iovlen = 1 };
          struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
          if (!sqe) { io_uring_submit(&ring); sqe = io_uring_get_sqe(&ring); }
          io_uring_prep_sendmsg(sqe, fd, &sm[s], 0);
          io_uring_sqe_set_data64(sqe, (uint64_t)s);
        } else {
          free_slots[nfree++] = s;
        }
      }
      io_uring_buf_ring_add(br, bufs[b], BUF_SIZE, b, io_uring_buf_ring_mask(BUFS), recycled++);
    }
    io_uring_buf_ring_advance(br, recycled);
    io_uring_cq_advance(&ring, seen);
  }
}
#endif

/* A TCP connection: the request read so far. */
struct conn { int fd; size_t got; int answered; unsigned char in[DATAGRAM]; };

static void *serve_tcp(void *arg) {
  int port = *(int *)arg;
  int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 1024) < 0) { perror("tcp"); exit(1); }
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
  epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
  struct epoll_event evs[64];
  static unsigned char out[DATAGRAM];
  for (;;) {
    int n = epoll_wait(ep, evs, 64, -1);
    for (int i = 0; i < n; i++) {
      struct conn *c = evs[i].data.ptr;
      if (!c) {
        int fd;
        while ((fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          c = calloc(1, sizeof *c);
          c->fd = fd;
          struct epoll_event ce = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
          epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ce);
        }
        continue;
      }
      ssize_t r = c->got < DATAGRAM ? read(c->fd, c->in + c->got, DATAGRAM - c->got) : 0;
      if (r <= 0 && !(r < 0 && errno == EAGAIN)) { close(c->fd); free(c); continue; }
      if (r > 0) c->got += (size_t)r;
      if (!c->answered && c->got >= 20) {
        uint32_t len = (uint32_t)c->in[16] << 24 | c->in[17] << 16 | c->in[18] << 8 | c->in[19];
        if (c->got >= 20 + (size_t)len) {
          size_t m = answer(c->in, c->got, out);
          if (!m || write(c->fd, out, m) != (ssize_t)m) { close(c->fd); free(c); continue; }
          c->answered = 1;
        }
      }
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: udp-floor mmsg|uring PORT CAPTURE.tsv\n"); return 2; }
  load(argv[3]);
  int fd = bound(atoi(argv[2])), port = atoi(argv[2]);
  pthread_t tcp;
  pthread_create(&tcp, NULL, serve_tcp, &port);
  if (strcmp(argv[1], "mmsg") == 0) serve_mmsg(fd);
#ifdef WITH_URING
  else if (strcmp(argv[1], "uring") == 0) serve_uring(fd);
#endif
  else { fprintf(stderr, "udp-floor: no mode %s\n", argv[1]); return 2; }
  return 0;
}

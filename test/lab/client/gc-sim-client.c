/* gc-sim-client: hands one command to the lab's resident simulator over a unix socket.
 *
 * It is sshd's ForceCommand on simulated Windows hosts and the docker/systemctl/reboot shims on
 * Linux lab hosts, so it must start in about a millisecond (a Node.js process takes 150 ms).
 *
 * Usage: gc-sim-client SOCKET HOST KIND [ARG...]   (KIND: windows | shim)
 * A Linux lab host's shims are two-line sh scripts: exec gc-sim-client SOCKET HOST shim docker "$@".
 *
 * Frames both ways: 1 type byte, 4-byte big-endian length, payload.
 *   client -> server: 'k' kind, 'h' host, 'a' one argument (repeated), 'c' SSH_ORIGINAL_COMMAND,
 *                     'd' working directory, 'p' parent pid (the sshd session, for dropping it on demand),
 *                     'g' go; later 'i' stdin data, 'I' end of stdin.
 *   server -> client: 'o' stdout, 'e' stderr, 'i' please send stdin, 'x' exit status (decimal text).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int sock = -1;

static void die(const char *what) {
  fprintf(stderr, "gc-sim-client: %s: %s\n", what, strerror(errno));
  exit(255);
}

static void write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("write");
    }
    p += n;
    len -= (size_t)n;
  }
}

static int read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  while (len > 0) {
    ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static void send_frame(char type, const char *data, size_t len) {
  unsigned char head[5] = {(unsigned char)type, (unsigned char)(len >> 24), (unsigned char)(len >> 16), (unsigned char)(len >> 8),
                           (unsigned char)len};
  write_all(sock, head, 5);
  if (len > 0) write_all(sock, data, len);
}

static void send_str(char type, const char *s) { send_frame(type, s, strlen(s)); }

static void send_stdin(void) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    send_frame('i', buf, (size_t)n);
  }
  send_frame('I', NULL, 0);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: gc-sim-client SOCKET HOST KIND [ARG...]\n");
    return 2;
  }
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(argv[1]) >= sizeof addr.sun_path) {
    fprintf(stderr, "gc-sim-client: socket path too long\n");
    return 255;
  }
  strcpy(addr.sun_path, argv[1]);
  sock = socket(AF_UNIX, SOCK_STREAM, 0);
  if (sock < 0) die("socket");
  if (connect(sock, (struct sockaddr *)&addr, sizeof addr) < 0) die("connect to the lab simulator");

  send_str('h', argv[2]);
  send_str('k', argv[3]);
  for (int i = 4; i < argc; i++) send_str('a', argv[i]);
  const char *original = getenv("SSH_ORIGINAL_COMMAND");
  if (original) send_str('c', original);
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) send_str('d', cwd);
  char ppid[32];
  snprintf(ppid, sizeof ppid, "%d", (int)getppid());
  send_str('p', ppid);
  send_frame('g', NULL, 0);

  for (;;) {
    unsigned char head[5];
    if (read_all(sock, head, 5) < 0) {
      fprintf(stderr, "gc-sim-client: the lab simulator closed the connection\n");
      return 255;
    }
    size_t len = ((size_t)head[1] << 24) | ((size_t)head[2] << 16) | ((size_t)head[3] << 8) | head[4];
    char *data = malloc(len + 1);
    if (!data) die("malloc");
    if (len > 0 && read_all(sock, data, len) < 0) {
      fprintf(stderr, "gc-sim-client: the lab simulator closed the connection\n");
      return 255;
    }
    data[len] = 0;
    switch (head[0]) {
      case 'o': write_all(1, data, len); break;
      case 'e': write_all(2, data, len); break;
      case 'i': send_stdin(); break;
      case 'x': return atoi(data);
      default: fprintf(stderr, "gc-sim-client: unknown frame %c\n", head[0]); return 255;
    }
    free(data);
  }
}

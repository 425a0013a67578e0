/*
 * replay: run a libFuzzer target over every file of a corpus directory with
 * a plain main(), so `make check` replays the committed corpus as a
 * regression test without clang.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
	int n = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;

		if (!d) {
			perror(argv[i]);
			return 1;
		}
		while ((e = readdir(d))) {
			char path[4096];
			FILE *f;
			char *buf;
			long len;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			f = fopen(path, "rb");
			if (!f)
				continue;
			fseek(f, 0, SEEK_END);
			len = ftell(f);
			fseek(f, 0, SEEK_SET);
			buf = malloc((size_t)len + 1);
			if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
				fclose(f);
				free(buf);
				return 1;
			}
			fclose(f);
			LLVMFuzzerTestOneInput((const uint8_t *)buf, (size_t)len);
			free(buf);
			n++;
		}
		closedir(d);
	}
	printf("replayed %d inputs\n", n);
	return n ? 0 : 1;
}

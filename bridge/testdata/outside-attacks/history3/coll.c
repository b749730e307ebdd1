#define _GNU_SOURCE
// prefix-collide two git commit templates on their first 6 bytes (12 hex).
// usage: coll FILE_H FILE_E  ; each file holds the commit body with the
// 8 characters "NNNNNNNN" where the nonce goes. Prints "nH nE idprefix".
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef struct { uint64_t k; uint32_t n; } ent;
static int cmp(const void *a, const void *b) { uint64_t x=((ent*)a)->k, y=((ent*)b)->k; return x<y?-1:x>y; }
static char *load(const char *f, size_t *len, size_t *off, size_t *hl) {
	FILE *fp=fopen(f,"rb"); if(!fp) exit(2); char body[8192]; size_t n=fread(body,1,sizeof body,fp); fclose(fp);
	char *buf=malloc(n+64); int h=sprintf(buf,"commit %zu",n); buf[h]=0; h++; memcpy(buf+h,body,n);
	char *p=memmem(buf+h,n,"NNNNNNNN",8); if(!p) exit(2); *off=p-buf; *len=h+n; *hl=h; return buf; }
static uint64_t hsh(char *b, size_t len, size_t off, uint32_t nonce) {
	char t[9]; sprintf(t,"%08x",nonce); memcpy(b+off,t,8); unsigned char d[20]; SHA1((unsigned char*)b,len,d);
	uint64_t k=0; for(int i=0;i<6;i++) k=(k<<8)|d[i]; return k; }
int main(int c, char **v) {
	size_t lh,oh,hh,le,oe,he; char *H=load(v[1],&lh,&oh,&hh), *E=load(v[2],&le,&oe,&he);
	uint32_t NH = c>3 ? atoi(v[3]) : (1u<<24);
	ent *t=malloc(sizeof(ent)*NH);
	for(uint32_t i=0;i<NH;i++){ t[i].k=hsh(H,lh,oh,i); t[i].n=i; }
	qsort(t,NH,sizeof(ent),cmp);
	for(uint32_t j=0;j<(1u<<28);j++){ uint64_t k=hsh(E,le,oe,j);
		size_t lo=0,hi=NH; while(lo<hi){ size_t m=(lo+hi)/2; if(t[m].k<k) lo=m+1; else hi=m; }
		if(lo<NH && t[lo].k==k){ printf("%08x %08x %012llx\n",t[lo].n,j,(unsigned long long)k); return 0; } }
	return 1; }

// A C++ probe, not part of the build (2026-12-03, Zen 5 guest): one DRAM read stream per thread
// (2 GiB in all, huge pages, first-touched by its thread, threads pinned to PUs 0..T-1) with F
// FMAs on each 64-byte vector it reads (F = 0, 4, 8; eight chains, as harness ceiling_read_fma)
// and a software prefetch of every line DIST bytes ahead (none, PREFETCHT0, PREFETCHT2,
// PREFETCHNTA; 2-32 KB). Prints the best of 3 passes per variant, three rounds.
//   g++ -O2 -march=x86-64-v4 -std=c++17 -pthread stream_probe.cc -o stream_probe && ./stream_probe 1
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <thread>
#include <vector>
#include <pthread.h>
template<int F> __attribute__((noinline)) float run(const float* p, long n, int hint, long dist){
  __m512 s[8], c[8]; for(int k=0;k<8;k++){s[k]=_mm512_setzero_ps();c[k]=_mm512_setzero_ps();}
  const __m512 h=_mm512_set1_ps(0.5f);
  for(long i=0;i+128<=n;i+=128){
    const char* a=(const char*)(p+i)+dist;
    if(hint==1) for(int o=0;o<512;o+=64) _mm_prefetch(a+o,_MM_HINT_T0);
    else if(hint==2) for(int o=0;o<512;o+=64) _mm_prefetch(a+o,_MM_HINT_T2);
    else if(hint==3) for(int o=0;o<512;o+=64) _mm_prefetch(a+o,_MM_HINT_NTA);
#pragma GCC unroll 8
    for(int k=0;k<8;k++){ __m512 v=_mm512_loadu_ps(p+i+16*k); s[k]=_mm512_add_ps(s[k],v);
#pragma GCC unroll 32
      for(int f=0;f<F;f++) c[(k+f)&7]=_mm512_fmadd_ps(c[(k+f)&7],h,v);}
  }
  __m512 t=_mm512_setzero_ps(); for(int k=0;k<8;k++) t=_mm512_add_ps(t,_mm512_add_ps(s[k],c[k]));
  return _mm512_reduce_add_ps(t);
}
float go(int F,const float*p,long n,int h,long d){switch(F){case 0:return run<0>(p,n,h,d);case 4:return run<4>(p,n,h,d);case 8:return run<8>(p,n,h,d);default:return run<16>(p,n,h,d);}}
int main(int argc,char**argv){
  int threads=atoi(argv[1]); long bytes=2L<<30; long n=bytes/4;
  float* p=(float*)aligned_alloc(1<<21,bytes); madvise(p,bytes,MADV_HUGEPAGE);
  long per=n/threads;
  std::vector<std::thread> th; for(int t=0;t<threads;t++) th.emplace_back([&,t]{cpu_set_t cs;CPU_ZERO(&cs);CPU_SET(t,&cs);pthread_setaffinity_np(pthread_self(),sizeof cs,&cs); for(long i=t*per;i<(t+1)*per;i++)p[i]=1.0f;}); for(auto&x:th)x.join(); th.clear();
  struct V{int F,h; long d;}; std::vector<V> vs;
  for(int F: {0,4,8}) { vs.push_back({F,0,0}); for(long d: {2048L,4096L,8192L}) for(int h:{1,2,3}) vs.push_back({F,h,d}); vs.push_back({F,2,16384}); vs.push_back({F,2,32768});}
  const char* hn[]={"none","T0","T2","NTA"};
  for(int round=0;round<3;round++) for(auto v:vs){
    double best=1e30;
    for(int r=0;r<3;r++){
      std::vector<float> out(threads*16);
      auto t0=std::chrono::steady_clock::now();
      for(int t=0;t<threads;t++) th.emplace_back([&,t]{cpu_set_t cs;CPU_ZERO(&cs);CPU_SET(t,&cs);pthread_setaffinity_np(pthread_self(),sizeof cs,&cs); out[t*16]=go(v.F,p+t*per,per,v.h,v.d);}); for(auto&x:th)x.join(); th.clear();
      double s=std::chrono::duration<double>(std::chrono::steady_clock::now()-t0).count(); if(s<best)best=s;
    }
    printf("round %d threads %d fma %d hint %s dist %ld GB/s %.1f\n",round,threads,v.F,hn[v.h],v.d,bytes/best*1e-9);
  }
}

-- A small Nsight Systems SQLite export (nsys export --type sqlite), reduced to the tables and columns Pacer reads:
-- one process (pid 4242) on one GPU, two streams, a GEMM and an NCCL all-reduce per step, NVTX ranges per segment.
-- Tests build the .sqlite from this text so the sample stays reviewable.
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n'),
  (3, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (4, 'allreduce fc1.weight[0]'), (5, 'cudaStreamSynchronize');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER,
  blockX INTEGER, blockY INTEGER, blockZ INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1000500, 1030500, 0, 1, 7, 11, 71168950272, 2, 2, 132, 1, 1, 128, 1, 1),
  (1040000, 1460000, 0, 1, 20, 12, 71168950272, 3, 3, 8, 1, 1, 512, 1, 1),
  (2000500, 2030500, 0, 1, 7, 13, 71168950272, 2, 2, 132, 1, 1, 128, 1, 1),
  (2040000, 2455000, 0, 1, 20, 14, 71168950272, 3, 3, 8, 1, 1, 512, 1, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (900000, 905000, 0, 1, 7, 10, 71168950272, 1048576, 1, 0, 2);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1000000, 1000400, 1, 71168954517, 11, 1, 0, NULL), (1030000, 1030300, 1, 71168954517, 12, 1, 0, NULL),
  (2000000, 2000400, 1, 71168954517, 13, 1, 0, NULL), (2030000, 2030300, 1, 71168954517, 14, 1, 0, NULL),
  (2460000, 2470000, 1, 71168954517, 15, 5, 0, NULL);
CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, textId) VALUES
  (1029000, 1461000, 59, NULL, 71168954517, 4), (2029000, 2456000, 59, 'allreduce fc1.weight[0]', 71168954517, NULL),
  (3000000, NULL, 34, 'a mark, not a range', 71168954517, NULL);

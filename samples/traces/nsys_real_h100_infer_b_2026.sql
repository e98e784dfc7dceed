-- Real Nsight Systems 2026.2.1 export (export schema 3.25.0) of another two-GPU job on H100s (FastVideo, sequence
-- parallel), from GindaChen/nsys-ai's tests/fixtures/h100_2gpu_1s.sqlite (MIT licence), reduced with sqlite3 like
-- nsys_real_h100_infer_a_2026.sql: its first 12 kernels' time window. Recorded two days before that one: a different job.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)
    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)
    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.
    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.
    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.
    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.
    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.
    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.
    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.
    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).
    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).
    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).
    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).
    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.
    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER,                               -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
    qmdBulkReleaseDone          INTEGER,                               -- QMD bulk release done timestamp from CWD events.
    qmdPreexitDone              INTEGER,                               -- QMD pre-exit done timestamp from CWD events.
    qmdLastCtaDone              INTEGER,                               -- QMD last CTA done timestamp from CWD events.
    graphId                     INTEGER,                               -- Kernel graph ID.
    clusterX                    INTEGER,                               -- Cluster X dimension.
    clusterY                    INTEGER,                               -- Cluster Y dimension.
    clusterZ                    INTEGER,                               -- Cluster Z dimension.
    clusterSchedulingPolicy     INTEGER,                               -- Cluster scheduling policy.
    maxPotentialClusterSize     INTEGER,                               -- Maximum potential cluster size.
    maxActiveClusters           INTEGER,                               -- Maximum active clusters.
    sharedMemoryRequestedPercentage   INTEGER,                         -- Shared memory requested percentage.
    tensorSizeMinusOneElements   TEXT      NOT NULL                    -- TMA descriptor tensor size minus one elements array.
);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155360295935,155360299999,0,1,0,7,1438831,281476838981632,331029,331030,330290,1,1,32,50,4,1,256,1,1,0,0,0,250871808,75429,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155360368270,155360371886,1,2,0,15,1477488,281476855758848,331029,331030,330290,1,1,32,50,4,1,256,1,1,0,0,0,250871808,75429,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370237002,155370239370,0,1,0,7,1438983,281476838981632,331031,329668,330291,1,1,32,200,1,1,128,1,1,0,0,0,250871808,75434,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370241386,155370250442,0,1,0,7,1438997,281476838981632,331032,331033,330292,1,1,32,4,1,1,32,16,1,16,0,0,250871808,75435,16384,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370252426,155370253738,0,1,0,7,1439007,281476838981632,331034,329668,330293,1,1,32,1,1,1,128,1,1,0,0,0,250871808,75436,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370254666,155370256298,0,1,0,7,1439017,281476838981632,331035,329668,330294,1,1,32,1,1,1,128,1,1,0,0,0,250871808,75437,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370257290,155370259594,0,1,0,7,1439027,281476838981632,331036,331010,330295,1,1,18,800,1,1,128,1,1,0,0,0,250871808,75438,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370261578,155370263594,0,1,0,7,1439037,281476838981632,331036,331010,330295,1,1,18,800,1,1,128,1,1,0,0,0,250871808,75439,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370264650,155370419435,0,1,0,7,1439051,281476838981632,330296,330296,330296,1,1,255,1,48,5,128,1,1,0,33280,0,289800192,75440,135168,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370307921,155370310033,1,2,0,15,1477640,281476855758848,331031,329668,330291,1,1,32,200,1,1,128,1,1,0,0,0,250871808,75434,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370312241,155370321489,1,2,0,15,1477654,281476855758848,331032,331033,330292,1,1,32,4,1,1,32,16,1,16,0,0,250871808,75435,16384,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(155370322737,155370324113,1,2,0,15,1477664,281476855758848,331034,329668,330293,1,1,32,1,1,1,128,1,1,0,0,0,250871808,75436,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)
);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(155360442298,155367601132,0,281476838981743,1452824,331673,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(155367602162,155367743282,0,281476838981743,1452826,331673,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(155367787420,155370184910,0,281476838981743,1452836,329669,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(155360503945,155367669606,0,281476855758960,1491481,331673,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(155367670898,155367812430,0,281476855758960,1491483,331673,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(155367853144,155370259397,0,281476855758960,1491493,329669,0,NULL);
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Explicit name/text (non-registered string)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain/string
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT,                                  -- One of possible payload value union members.
    binaryData                  TEXT                                   -- Binary payload. See docs for format.
);
INSERT INTO NVTX_EVENTS VALUES(155360312659,155360315511,59,NULL,NULL,NULL,'aten::_unsafe_view, op_id = 314299',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360366438,155367752941,59,NULL,NULL,NULL,'aten::linear, op_id = 314300',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360368010,155360375343,59,NULL,NULL,NULL,'aten::t, op_id = 314301',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360370259,155360373984,59,NULL,NULL,NULL,'aten::transpose, op_id = 314302',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360372166,155360373617,59,NULL,NULL,NULL,'aten::as_strided, op_id = 314303',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360376444,155367752193,59,NULL,NULL,NULL,'aten::matmul, op_id = 314304',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360378274,155360380403,59,NULL,NULL,NULL,'aten::reshape, op_id = 314305',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360378855,155360380246,59,NULL,NULL,NULL,'aten::view, op_id = 314306',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360381318,155367746548,59,NULL,NULL,NULL,'aten::mm, op_id = 314307',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360385825,155360388345,59,NULL,NULL,NULL,'aten::_unsafe_view, op_id = 314278',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360432380,155367821626,59,NULL,NULL,NULL,'aten::linear, op_id = 314279',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360433567,155360441293,59,NULL,NULL,NULL,'aten::t, op_id = 314280',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360436025,155360439797,59,NULL,NULL,NULL,'aten::transpose, op_id = 314281',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360437878,155360439293,59,NULL,NULL,NULL,'aten::as_strided, op_id = 314282',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360442984,155367820735,59,NULL,NULL,NULL,'aten::matmul, op_id = 314283',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360444870,155360446992,59,NULL,NULL,NULL,'aten::reshape, op_id = 314284',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360445484,155360446776,59,NULL,NULL,NULL,'aten::view, op_id = 314285',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155360447898,155367815842,59,NULL,NULL,NULL,'aten::mm, op_id = 314286',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155367748937,155367750889,59,NULL,NULL,NULL,'aten::_unsafe_view, op_id = 314308',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155367771216,155370187913,59,NULL,NULL,NULL,'aten::add, op_id = 314309',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155367817820,155367819535,59,NULL,NULL,NULL,'aten::_unsafe_view, op_id = 314287',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155367838211,155370262399,59,NULL,NULL,NULL,'aten::add, op_id = 314288',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155370268643,155370342141,59,NULL,NULL,NULL,'FSDP::post_forward (encoder.block.14.layer.0), op_id = 314310',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155370349996,155370435765,59,NULL,NULL,NULL,'FSDP::post_forward (encoder.block.14.layer.0), op_id = 314289',281476855758960,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(155370398874,155370786623,59,NULL,NULL,NULL,'FSDP::pre_forward (encoder.block.14.layer.1), op_id = 314311',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);
INSERT INTO StringIds VALUES(329668,'vectorized_elementwise_kernel');
INSERT INTO StringIds VALUES(329669,'cudaLaunchKernel_v7000');
INSERT INTO StringIds VALUES(330290,'_ZN2at6native24vectorized_gather_kernelILi16ElEEvPcS2_PT0_illllb');
INSERT INTO StringIds VALUES(330291,'_ZN2at6native29vectorized_elementwise_kernelILi4EZNS0_51_GLOBAL__N__b1108092_12_PowKernel_cu_398dda3b_2224229pow_tensor_scalar_kernel_implIffEEvRNS_18TensorIteratorBaseET0_EUlfE_St5arrayIPcLm2EEEEviS6_T1_');
INSERT INTO StringIds VALUES(330292,'_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffffEEjfLi4ELi4EEEEEvT1_');
INSERT INTO StringIds VALUES(330293,'_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_21CUDAFunctorOnSelf_addIfEESt5arrayIPcLm2EEEEviT0_T1_');
INSERT INTO StringIds VALUES(330294,'_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_17rsqrt_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE0_clEvENKUlvE0_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_');
INSERT INTO StringIds VALUES(330295,'_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_');
INSERT INTO StringIds VALUES(330296,'sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas');
INSERT INTO StringIds VALUES(331010,'elementwise_kernel');
INSERT INTO StringIds VALUES(331029,'void at::native::vectorized_gather_kernel<(int)16, long>(char *, char *, T2 *, int, long, long, long, long, bool)');
INSERT INTO StringIds VALUES(331030,'vectorized_gather_kernel');
INSERT INTO StringIds VALUES(331031,'void at::native::vectorized_elementwise_kernel<(int)4, void at::native::<unnamed>::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase &, T2)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)');
INSERT INTO StringIds VALUES(331032,'void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4, (int)4>>(T3)');
INSERT INTO StringIds VALUES(331033,'reduce_kernel');
INSERT INTO StringIds VALUES(331034,'void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctorOnSelf_add<float>, std::array<char *, (unsigned long)2>>(int, T2, T3)');
INSERT INTO StringIds VALUES(331035,'void at::native::vectorized_elementwise_kernel<(int)4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)');
INSERT INTO StringIds VALUES(331036,'void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)');
INSERT INTO StringIds VALUES(331673,'cudaLaunchKernelExC_v11060');
CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).
    utcTime                     TEXT,                                  -- Start of the capture in UTC.
    localTime                   TEXT,                                  -- Start of the capture in local time of target.
    systemClockNs               INTEGER                                -- Target system clock timestamp at start of the capture (ns).
);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1779630014975716426,'2026-05-24T13:40:14','2026-05-24T13:40:14',35255823190);
CREATE TABLE META_DATA_EXPORT (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_NAME','NVIDIA Nsight Systems');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_VERSION','2026.2.1.210');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_DATE','2026.2');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.25.0');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION_MAJOR','3');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION_MINOR','25');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION_MICRO','0');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION_CKSUM','306658267 182758');
COMMIT;

-- Real Nsight Systems 2026.2.1 export (export schema 3.25.0) of a two-GPU PyTorch job on H100s (forward kernels only, NCCL send/recv),
-- from GindaChen/nsys-ai's tests/fixtures/mfu_2gpu_before.sqlite (MIT licence), reduced with sqlite3 to the tables Pacer
-- reads (the version rows of META_DATA_EXPORT, the session's start, NCCL's payload schema entries), its first 12 kernels'
-- time window and the strings they use, then written out with .dump. Not a DDP job (no backward, no all-reduce).
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
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60111513113,60111701657,1,2,0,15,2619582,281477409406976,1366270,1364937,1366243,1,1,18,93600,1,1,128,1,1,0,0,0,250871808,161656,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60111541307,60111730171,0,1,0,7,2610639,281477392629760,1366270,1364937,1366243,1,1,18,93600,1,1,128,1,1,0,0,0,250871808,161656,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60111703289,60111852216,1,2,0,15,2619598,281477409406976,1365172,1365173,1365146,1,1,32,93600,1,1,128,1,1,0,0,0,250871808,161657,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60111731643,60111879835,0,1,0,7,2610655,281477392629760,1365172,1365173,1365146,1,1,32,93600,1,1,128,1,1,0,0,0,250871808,161657,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60111854456,60112035064,1,2,0,15,2619609,281477409406976,1366114,1364937,1366111,1,1,18,187200,1,1,128,1,1,0,0,0,250871808,161658,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60111882299,60112063707,0,1,0,7,2610666,281477392629760,1366114,1364937,1366111,1,1,18,187200,1,1,128,1,1,0,0,0,250871808,161658,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60112037400,60112217527,1,2,0,15,2619619,281477409406976,1366114,1364937,1366111,1,1,18,187200,1,1,128,1,1,0,0,0,250871808,161659,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60112066075,60112246043,0,1,0,7,2610676,281477392629760,1366114,1364937,1366111,1,1,18,187200,1,1,128,1,1,0,0,0,250871808,161659,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60112218967,60112407927,1,2,0,15,2619629,281477409406976,1366280,1364239,1366248,1,1,32,46800,1,1,128,1,1,0,0,0,250871808,161660,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60112247419,60112435995,0,1,0,7,2610686,281477392629760,1366280,1364239,1366248,1,1,32,46800,1,1,128,1,1,0,0,0,250871808,161660,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60112409687,60112505335,1,2,0,15,2619642,281477409406976,1364959,1364239,1364958,1,1,32,46800,1,1,128,1,1,0,0,0,250871808,161661,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(60112437499,60112533083,0,1,0,7,2610699,281477392629760,1364959,1364239,1364958,1,1,32,46800,1,1,128,1,1,0,0,0,250871808,161661,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
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
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(60111453577,60111467677,0,281477409407121,2619838,71256,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(60111468445,60120913467,0,281477409407121,2619839,71258,0,NULL);
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
INSERT INTO NVTX_EVENTS VALUES(60111430336,60111435104,59,NULL,NULL,NULL,'aten::empty, op_id = 990346',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(60111437859,60120918694,59,NULL,NULL,NULL,'aten::to, op_id = 990347',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(60111439330,60120918325,59,NULL,NULL,NULL,'aten::_to_copy, op_id = 990348',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(60111441720,60111447580,59,NULL,NULL,NULL,'aten::empty_strided, op_id = 990349',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(60111448888,60120917142,59,NULL,NULL,NULL,'aten::copy_, op_id = 990350',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);
INSERT INTO StringIds VALUES(71256,'cudaMemcpyAsync_v3020');
INSERT INTO StringIds VALUES(71258,'cudaStreamSynchronize_v3020');
INSERT INTO StringIds VALUES(1364239,'vectorized_elementwise_kernel');
INSERT INTO StringIds VALUES(1364937,'elementwise_kernel');
INSERT INTO StringIds VALUES(1364958,'_ZN2at6native29vectorized_elementwise_kernelILi8EZNS0_25bfloat16_copy_kernel_cudaERNS_18TensorIteratorBaseEEUlfE_St5arrayIPcLm2EEEEviT0_T1_');
INSERT INTO StringIds VALUES(1364959,'void at::native::vectorized_elementwise_kernel<(int)8, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)');
INSERT INTO StringIds VALUES(1365146,'_ZN2at6native27unrolled_elementwise_kernelIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE5_clEvEUlfE_St5arrayIPcLm2EELi4E23TrivialOffsetCalculatorILi1EjESB_NS0_6memory12LoadWithCastILi1EEENSC_13StoreWithCastILi1EEEEEviT_T0_T2_T3_T4_T5_');
INSERT INTO StringIds VALUES(1365172,'void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>, (int)4, TrivialOffsetCalculator<(int)1, unsigned int>, TrivialOffsetCalculator<(int)1, unsigned int>, at::native::memory::LoadWithCast<(int)1>, at::native::memory::StoreWithCast<(int)1>>(int, T1, T2, T4, T5, T6, T7)');
INSERT INTO StringIds VALUES(1365173,'unrolled_elementwise_kernel');
INSERT INTO StringIds VALUES(1366111,'_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_');
INSERT INTO StringIds VALUES(1366114,'void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)');
INSERT INTO StringIds VALUES(1366243,'_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE5_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_');
INSERT INTO StringIds VALUES(1366248,'_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_');
INSERT INTO StringIds VALUES(1366270,'void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)');
INSERT INTO StringIds VALUES(1366280,'void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, std::array<char *, (unsigned long)3>>(int, T2, T3)');
CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).
    utcTime                     TEXT,                                  -- Start of the capture in UTC.
    localTime                   TEXT,                                  -- Start of the capture in local time of target.
    systemClockNs               INTEGER                                -- Target system clock timestamp at start of the capture (ns).
);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1779782330176752435,'2026-05-26T07:58:50','2026-05-26T07:58:50',28254349605);
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
CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (
    -- NVTX payload schema entries.

    domainId                    INTEGER   NOT NULL,                    -- User-controlled ID that can be used to group events.
    schemaId                    INTEGER   NOT NULL,                    -- Identifier of the payload schema.
    idx                         INTEGER   NOT NULL,                    -- Index of the entry in the payload schema.
    flags                       INTEGER,                               -- Payload entry flags.
    type                        INTEGER,                               -- Payload entry type.
    name                        TEXT,                                  -- Label of the payload entry.
    description                 TEXT,                                  -- Description of the payload entry.
    arrayOrUnionDetail          INTEGER,                               -- Array length (index) or selected union member.
    offset                      INTEGER                                -- Entry offset in the binary data in bytes.
);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777218,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777218,1,NULL,5,'No. of ranks',NULL,NULL,8);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777218,2,NULL,5,'Rank',NULL,NULL,12);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777218,3,NULL,5,'CUDA device',NULL,NULL,16);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777230,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777223,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777223,1,NULL,22,'Message size [bytes]',NULL,NULL,8);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777223,2,NULL,16777232,'Reduction operation',NULL,NULL,16);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777220,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777220,1,NULL,22,'Message size [bytes]',NULL,NULL,8);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777226,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777226,1,NULL,22,'Message size [bytes]',NULL,NULL,8);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777226,2,NULL,5,'Peer rank',NULL,NULL,16);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777225,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777225,1,NULL,22,'Message size [bytes]',NULL,NULL,8);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777225,2,NULL,5,'Peer rank',NULL,NULL,16);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777222,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777222,1,NULL,22,'Message size [bytes]',NULL,NULL,8);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777222,2,NULL,5,'Root',NULL,NULL,16);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777227,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777227,1,NULL,5,'No. of ranks',NULL,NULL,8);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777227,2,NULL,5,'Rank',NULL,NULL,12);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES(1,16777227,3,NULL,5,'CUDA device',NULL,NULL,16);
COMMIT;

#!/usr/bin/env python3
"""Writes the model-zoo profiles (resnet50.json, vgg16.json, bert_base.json, gpt2_small.json) next to this file.

Each model is derived from its public architecture definition (torchvision's ResNet-50 and VGG-16, the BERT-base
configuration of Devlin et al. as in Hugging Face's BertModel, GPT-2 small as in Radford et al. / Hugging Face's
GPT2Model): the parameters in model.parameters() order with their shapes, and per layer the forward FLOPs of one
sample (2 x multiply-accumulates of the convolutions, matrix products and attention; element-wise layers cost
only the per-layer overhead). The engine turns FLOPs into time with the profile's device_tflops.

Run it again after changing a model; the JSON files are committed so that Pacer needs no Python.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def layer(name, gflops, params):
    return {"name": name, "forward_gflops": round(gflops, 6),
            "params": [{"name": n, "shape": list(s)} for n, s in params]}


def conv(name, cin, cout, k, out_hw, bias=False):
    flops = 2.0 * out_hw * out_hw * cout * cin * k * k
    params = [(name + ".weight", (cout, cin, k, k))]
    if bias:
        params.append((name + ".bias", (cout,)))
    return layer(name, flops / 1e9, params)


def bn(name, c, hw):
    # Normalise, scale and shift: a few FLOPs per element, memory bound in practice (the overhead dominates).
    return layer(name, 4.0 * c * hw * hw / 1e9, [(name + ".weight", (c,)), (name + ".bias", (c,))])


def linear(name, fin, fout, tokens=1, bias=True, weight_shape=None):
    params = [(name + ".weight", weight_shape or (fout, fin))]
    if bias:
        params.append((name + ".bias", (fout,)))
    return layer(name, 2.0 * tokens * fin * fout / 1e9, params)


def norm(name, c, tokens):
    return layer(name, 8.0 * c * tokens / 1e9, [(name + ".weight", (c,)), (name + ".bias", (c,))])


def resnet50():
    layers = [conv("conv1", 3, 64, 7, 112), bn("bn1", 64, 112)]
    inplanes, hw = 64, 56
    for stage, (planes, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], start=1):
        for b in range(blocks):
            s = stride if b == 0 else 1
            out_hw = hw // s
            p = "layer%d.%d." % (stage, b)
            layers += [conv(p + "conv1", inplanes, planes, 1, hw), bn(p + "bn1", planes, hw),
                       conv(p + "conv2", planes, planes, 3, out_hw), bn(p + "bn2", planes, out_hw),
                       conv(p + "conv3", planes, planes * 4, 1, out_hw), bn(p + "bn3", planes * 4, out_hw)]
            if b == 0:
                layers += [conv(p + "downsample.0", inplanes, planes * 4, 1, out_hw),
                           bn(p + "downsample.1", planes * 4, out_hw)]
            inplanes, hw = planes * 4, out_hw
    layers.append(linear("fc", 2048, 1000))
    return {"name": "resnet50", "description": "ResNet-50 (torchvision), ImageNet 224x224, batch 64 per GPU",
            "source": "He et al. 2016; torchvision.models.resnet50 (v1.5: stride on the 3x3 conv)",
            "ranks": 8, "batch_size": 64, "device_tflops": 30, "backward_factor": 2.0,
            "layer_overhead_us": 10, "update_ns_per_element": 0.025, "layers": layers}


def vgg16():
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]
    layers, cin, hw, index = [], 3, 224, 0
    for v in cfg:
        if v == "M":
            hw //= 2
            index += 1
            continue
        layers.append(conv("features.%d" % index, cin, v, 3, hw, bias=True))
        cin = v
        index += 2  # conv, relu
    layers += [linear("classifier.0", 512 * 7 * 7, 4096), linear("classifier.3", 4096, 4096),
               linear("classifier.6", 4096, 1000)]
    return {"name": "vgg16", "description": "VGG-16 (torchvision, no batch norm), ImageNet 224x224, batch 32 per GPU",
            "source": "Simonyan & Zisserman 2015; torchvision.models.vgg16",
            "ranks": 8, "batch_size": 32, "device_tflops": 30, "backward_factor": 2.0,
            "layer_overhead_us": 10, "update_ns_per_element": 0.025, "layers": layers}


def bert_base(seq=128):
    h, inter, vocab = 768, 3072, 30522
    layers = [layer("embeddings", 0.0, [("embeddings.word_embeddings.weight", (vocab, h)),
                                        ("embeddings.position_embeddings.weight", (512, h)),
                                        ("embeddings.token_type_embeddings.weight", (2, h))]),
              norm("embeddings.LayerNorm", h, seq)]
    for i in range(12):
        p = "encoder.layer.%d." % i
        qkv = layer(p + "attention.self", (3 * 2.0 * seq * h * h + 2 * 2.0 * seq * seq * h) / 1e9,
                    [(p + "attention.self.query.weight", (h, h)), (p + "attention.self.query.bias", (h,)),
                     (p + "attention.self.key.weight", (h, h)), (p + "attention.self.key.bias", (h,)),
                     (p + "attention.self.value.weight", (h, h)), (p + "attention.self.value.bias", (h,))])
        layers += [qkv, linear(p + "attention.output.dense", h, h, seq), norm(p + "attention.output.LayerNorm", h, seq),
                   linear(p + "intermediate.dense", h, inter, seq), linear(p + "output.dense", inter, h, seq),
                   norm(p + "output.LayerNorm", h, seq)]
    layers.append(linear("pooler.dense", h, h, 1))
    return {"name": "bert_base", "description": "BERT-base (BertModel with pooler), sequence 128, batch 32 per GPU",
            "source": "Devlin et al. 2019; Hugging Face transformers BertModel(bert-base-uncased)",
            "ranks": 8, "batch_size": 32, "device_tflops": 30, "backward_factor": 2.0,
            "layer_overhead_us": 10, "update_ns_per_element": 0.025, "layers": layers}


def gpt2_small(seq=1024):
    h, vocab = 768, 50257
    layers = [layer("wte", 0.0, [("wte.weight", (vocab, h))]), layer("wpe", 0.0, [("wpe.weight", (1024, h))])]
    for i in range(12):
        p = "h.%d." % i
        attn = linear(p + "attn.c_attn", h, 3 * h, seq, weight_shape=(h, 3 * h))  # Conv1D stores (in, out)
        attn["forward_gflops"] = round(attn["forward_gflops"] + 2 * 2.0 * seq * seq * h / 1e9, 6)
        layers += [norm(p + "ln_1", h, seq), attn,
                   linear(p + "attn.c_proj", h, h, seq, weight_shape=(h, h)), norm(p + "ln_2", h, seq),
                   linear(p + "mlp.c_fc", h, 4 * h, seq, weight_shape=(h, 4 * h)),
                   linear(p + "mlp.c_proj", 4 * h, h, seq, weight_shape=(4 * h, h))]
    layers.append(norm("ln_f", h, seq))
    # The language-model head shares wte's weight: its FLOPs are real, its parameters are counted once (in wte).
    layers.append({"name": "lm_head (tied to wte)", "forward_gflops": round(2.0 * seq * h * vocab / 1e9, 6), "params": []})
    return {"name": "gpt2_small", "description": "GPT-2 small (124M, tied LM head), context 1024, batch 8 per GPU",
            "source": "Radford et al. 2019; Hugging Face transformers GPT2LMHeadModel(gpt2)",
            "ranks": 8, "batch_size": 8, "device_tflops": 30, "backward_factor": 2.0,
            "layer_overhead_us": 10, "update_ns_per_element": 0.025, "layers": layers}


def main():
    for model in (resnet50(), vgg16(), bert_base(), gpt2_small()):
        tensors = [p for l in model["layers"] for p in l["params"]]
        count = 0
        for p in tensors:
            n = 1
            for d in p["shape"]:
                n *= d
            count += n
        print("%-11s %4d tensors %12d parameters" % (model["name"], len(tensors), count))
        with open(os.path.join(HERE, model["name"] + ".json"), "w") as f:
            json.dump(model, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()

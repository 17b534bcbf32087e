import sharp from 'sharp';
const gif='.corpus/usr/lib/python3/dist-packages/skimage/data/no_time_for_that_tiny.gif';
const f0 = await sharp(gif,{page:0}).flip().raw().toBuffer();
const f23 = await sharp(gif,{page:23}).flip().raw().toBuffer();
for (const op of ['flip','rotate180']) {
const b=await (op==='flip'?sharp(gif,{animated:true}).flip():sharp(gif,{animated:true}).rotate(180)).gif().toBuffer();
const o0=await sharp(b,{page:0}).raw().toBuffer();
const r0 = op==='flip'? f0 : await sharp(gif,{page:0}).rotate(180).raw().toBuffer();
const r23 = op==='flip'? f23 : await sharp(gif,{page:23}).rotate(180).raw().toBuffer();
const d=(a,b)=>{let s=0;for(let i=0;i<a.length;i++)s+=Math.abs(a[i]-b[i]);return s/a.length};
console.log(op,'vs frame0',d(o0,r0),'vs frame23',d(o0,r23));
}

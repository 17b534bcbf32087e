import sharp from 'sharp';
// 4 quadrant image 40x20: TL red, TR green, BL blue, BR white
const w=40,h=20; const buf=Buffer.alloc(w*h*3);
for(let y=0;y<h;y++)for(let x=0;x<w;x++){const i=(y*w+x)*3;const c= y<h/2 ? (x<w/2?[255,0,0]:[0,255,0]) : (x<w/2?[0,0,255]:[255,255,255]); buf.set(c,i);}
const base = ()=>sharp(buf,{raw:{width:w,height:h,channels:3}});
const px = async (s)=>{const {data,info}=await s.raw().toBuffer({resolveWithObject:true}); const at=(x,y)=>[...data.subarray((y*info.width+x)*info.channels,(y*info.width+x)*info.channels+3)].map(v=>v>128?1:0).join(''); return `${info.width}x${info.height} TL${at(0,0)} TR${at(info.width-1,0)} BL${at(0,info.height-1)} BR${at(info.width-1,info.height-1)}`};
// staged reference: crop x=10..40 (w30,h20), rotate90, flip, resize to 10 wide
const s1 = await base().extract({left:10,top:0,width:30,height:20}).png().toBuffer();
const s2 = await sharp(s1).rotate(90).png().toBuffer();
const s3 = await sharp(s2).flip().png().toBuffer();
const s4 = sharp(s3).resize({width:10});
console.log('staged', await px(s4));
console.log('one   ', await px(base().extract({left:10,top:0,width:30,height:20}).rotate(90).flip().resize({width:10})));
console.log('one2  ', await px(base().autoOrient().extract({left:10,top:0,width:30,height:20}).rotate(90).flip().flop().resize({width:10})));
const s5 = await sharp(s3).flop().png().toBuffer();
console.log('staged2', await px(sharp(s5).resize({width:10})));
